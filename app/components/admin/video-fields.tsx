import { type FieldMetadata } from '@conform-to/react'
import { FormField, FormTextareaField } from '#app/components/forms/fields.tsx'
import { CheckboxList } from '#app/components/ui/checkbox-list.tsx'
import { Toggle } from '#app/components/ui/toggle.tsx'
import { formatDuration } from '#app/utils/format.ts'

type VideoFieldsMeta = {
  title: FieldMetadata<string>
  description: FieldMetadata<string>
  embedUrl: FieldMetadata<string>
  duration: FieldMetadata<unknown>
  prerequisiteVideos: FieldMetadata<unknown>
}

type VideoDefaults = {
  id?: string
  duration?: number | null
  visibility?: boolean
  preview?: boolean
  prerequisiteIds?: string[]
}

/**
 * The fields a video is made of, shared by Add New Video and the Edit dialog: title, description,
 * embed code or address, duration, the prerequisites (other videos of the course), and the
 * visibility (Hide/Unhide) and preview (Yes/No) toggles.
 */
export function VideoFields({
  fields,
  candidates,
  defaults = {},
}: {
  fields: VideoFieldsMeta
  /** the course's other videos, offered as prerequisites */
  candidates: { id: string; title: string }[]
  defaults?: VideoDefaults
}) {
  return (
    <>
      <FormField meta={fields.title} label="Video Title" />
      <FormTextareaField meta={fields.description} label="Description" />
      <FormTextareaField
        meta={fields.embedUrl}
        label="Embed code or video address"
        rows={3}
        placeholder='https://www.youtube.com/watch?v=… or <iframe src="…"></iframe>'
      />
      <FormField
        meta={fields.duration}
        label="Duration (mm:ss or h:mm:ss)"
        defaultValue={(fields.duration.initialValue as string | undefined) ?? formatDuration(defaults.duration)}
        placeholder="12:30"
        inputMode="numeric"
      />
      <fieldset className="pb-5">
        <legend className="field-label">Prerequisite videos</legend>
        {candidates.length === 0 ? (
          <p className="text-sm text-slate-500">This course has no other videos yet.</p>
        ) : (
          <CheckboxList
            name={fields.prerequisiteVideos.name}
            choices={candidates.map((video) => ({ value: video.id, label: video.title }))}
            checked={defaults.prerequisiteIds ?? []}
            className="max-h-48 overflow-y-auto rounded-md border border-slate-200 p-2"
          />
        )}
        <p className="field-error">{fields.prerequisiteVideos.errors?.[0]}</p>
      </fieldset>
      <div className="flex flex-wrap gap-x-8 gap-y-3 pb-4">
        <Toggle
          name="visibility"
          label="Visibility"
          onLabel="Unhide"
          offLabel="Hide"
          defaultChecked={defaults.visibility ?? true}
        />
        <Toggle name="preview" label="Preview" onLabel="Yes" offLabel="No" defaultChecked={defaults.preview ?? false} />
      </div>
    </>
  )
}
