import { getFormProps, type FormMetadata } from '@conform-to/react'
import { Form, useActionData, useNavigation, useSearchParams } from '@remix-run/react'
import { type ReactNode } from 'react'
import { FormField, FormFileField, FormTextareaField, UploadsScope, useUploads } from '#app/components/forms/fields.tsx'
import { useZodForm } from '#app/components/forms/use-zod-form.ts'
import { type UploadRules } from '#app/components/ui/file-upload.tsx'
import { FormError } from '#app/components/ui/form-footer.tsx'
import { DeleteButtons, Overlay, OVERLAY_TITLE_ID } from '#app/components/ui/overlay.tsx'
import { Toggle } from '#app/components/ui/toggle.tsx'
import type { DocumentDto, VideoDto } from '#app/modules/content/dto.ts'
import { EditDocumentFormSchema, EditVideoSchema } from '#app/modules/content/schema.ts'
import type { CourseDto } from '#app/modules/courses/dto.ts'
import { EditCourseSchema } from '#app/modules/courses/schema.ts'
import { isInlineType } from '#app/modules/files/links.ts'
import { type FormReply } from '#app/utils/forms.server.ts'
import { VideoFields } from './video-fields.tsx'

// The dialogs of the admin course page (and the dialog forms of other admin pages: DialogForm). Each form
// posts to the page with its intent in the URL and keeps the page's other parameters, so a refusal comes
// back to the same open dialog.

/** The action's reply to this dialog's form (its errors and what was typed), when it was this form that posted. */
export function useLastResult(intent: string) {
  const actionData = useActionData<FormReply>()
  const [params] = useSearchParams()
  return params.get('intent') === intent ? actionData?.result : undefined
}

function useActionUrl(intent: string) {
  const [params] = useSearchParams()
  const next = new URLSearchParams(params)
  next.delete('intent')
  next.set('intent', intent)
  return `?${next}`
}

function useBusy(intent: string) {
  const navigation = useNavigation()
  return navigation.state === 'submitting' && (navigation.formAction ?? '').includes(`intent=${intent}`)
}

/**
 * A dialog's form: posted to the page with its intent, named by the dialog's title, and ending with
 * its form-level error, Cancel (back to the page) and Save (disabled while saving, or while a file field
 * inside uploads).
 */
export function DialogForm({
  form,
  intent,
  multipart = false,
  closeTo,
  children,
}: {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- any dialog's form, whatever its schema
  form: FormMetadata<any, string[]>
  intent: string
  multipart?: boolean
  closeTo: string
  children: ReactNode
}) {
  const action = useActionUrl(intent)
  const busy = useBusy(intent)
  const { uploading, report } = useUploads()
  return (
    <Form
      method="post"
      action={action}
      encType={multipart ? 'multipart/form-data' : undefined}
      preventScrollReset
      aria-labelledby={OVERLAY_TITLE_ID}
      {...getFormProps(form)}
      className="space-y-1"
    >
      <UploadsScope report={report}>{children}</UploadsScope>
      <FormError id={form.errorId} errors={form.errors} />
      <div className="flex justify-end gap-3">
        <a href={closeTo} className="btn-secondary">
          Cancel
        </a>
        <button type="submit" className="btn-primary" disabled={busy || uploading}>
          {busy ? 'Saving…' : 'Save'}
        </button>
      </div>
    </Form>
  )
}

export function EditVideoDialog({
  video,
  candidates,
  closeTo,
}: {
  video: VideoDto
  candidates: { id: string; title: string }[]
  closeTo: string
}) {
  const [form, fields] = useZodForm(EditVideoSchema.omit({ courseId: true }), {
    id: `edit-video-${video._id}`,
    lastResult: useLastResult('editVideo'),
    defaultValue: { title: video.title, description: video.description, embedUrl: video.embedUrl },
  })
  return (
    <Overlay title="Edit video" description={video.title} closeTo={closeTo}>
      <DialogForm form={form} intent="editVideo" closeTo={closeTo}>
        <input type="hidden" name="videoId" value={video._id} />
        <VideoFields
          fields={fields}
          candidates={candidates}
          defaults={{
            duration: video.duration,
            visibility: video.visibility,
            preview: video.preview,
            prerequisiteIds: video.prerequisiteVideos.map((p) => p._id),
          }}
        />
      </DialogForm>
    </Overlay>
  )
}

export function EditDocumentDialog({
  document,
  closeTo,
  upload,
}: {
  document: DocumentDto
  closeTo: string
  /** the file picker's accept and hint (uploadRules('documentEdit')) */
  upload: UploadRules
}) {
  const [form, fields] = useZodForm(EditDocumentFormSchema.omit({ courseId: true }), {
    id: `edit-document-${document._id}`,
    lastResult: useLastResult('editDocument'),
    defaultValue: { orderId: String(document.orderId) },
  })
  const kind = document.documentType === 'Scenarios' ? 'scenario' : 'document'
  return (
    <Overlay title={`Edit ${kind}`} description={document.document.name} closeTo={closeTo}>
      <DialogForm form={form} intent="editDocument" multipart closeTo={closeTo}>
        <input type="hidden" name="documentId" value={document._id} />
        <FormField meta={fields.orderId} label="Order Id" type="number" min={0} />
        <div className="pb-4">
          <Toggle
            name="visibility"
            label="Visibility"
            onLabel="Unhide"
            offLabel="Hide"
            defaultChecked={document.visibility}
          />
        </div>
        <FormFileField meta={fields.document} label="Replace the file (optional)" kind="document" upload={upload} />
      </DialogForm>
    </Overlay>
  )
}

/** The form without the file pickers left empty (a browser still posts them, nameless and empty). */
export function withoutEmptyFiles(formData: FormData) {
  const kept = new FormData()
  for (const [name, value] of formData) {
    if (!(value instanceof File && value.size === 0 && value.name === '')) kept.append(name, value)
  }
  return kept
}

export function EditCourseDialog({
  course,
  closeTo,
  upload,
}: {
  course: CourseDto
  closeTo: string
  /** the image picker's accept and hint (uploadRules('courseImage')) */
  upload: UploadRules
}) {
  const [form, fields] = useZodForm(EditCourseSchema.omit({ courseId: true }), {
    id: 'edit-course',
    lastResult: useLastResult('editCourse'),
    defaultValue: {
      title: course.title,
      description: course.description,
      courseImage: course.courseImage ? JSON.stringify(course.courseImage) : '',
    },
    // the picker left empty posts an empty file under the same name as the current image's JSON;
    // the server skips it, and so must the check here, or the image kept reads as missing
    prepare: withoutEmptyFiles,
  })
  return (
    <Overlay title="Edit Course Details" closeTo={closeTo}>
      <DialogForm form={form} intent="editCourse" multipart closeTo={closeTo}>
        <FormField meta={fields.title} label="Course Name" />
        <FormTextareaField meta={fields.description} label="Description" />
        <FormFileField
          meta={fields.courseImage}
          label="Course Image"
          kind="image"
          upload={upload}
          hint={`${upload.hint}; leave it to keep the current image`}
          defaultFileInfo={course.courseImage}
        />
      </DialogForm>
    </Overlay>
  )
}

export function DeleteEntryDialog({
  entry,
  dependents,
  closeTo,
}: {
  entry: VideoDto | DocumentDto
  /** titles of the videos that list this one as a prerequisite */
  dependents: string[]
  closeTo: string
}) {
  const video = 'embedUrl' in entry
  const intent = video ? 'deleteVideo' : 'deleteDocument'
  const action = useActionUrl(intent)
  const busy = useBusy(intent)
  const name = video ? entry.title : entry.document.name
  const kind = video ? 'video' : entry.documentType === 'Scenarios' ? 'scenario' : 'document'
  return (
    <Overlay
      title={`Delete ${kind}`}
      role="alertdialog"
      closeTo={closeTo}
      description={
        <>
          Delete “{name}”? This cannot be undone.
          {dependents.length ? (
            <> It is a prerequisite of {dependents.join(', ')}; they will no longer require it.</>
          ) : null}
          {video ? ' Learners’ progress on it is deleted too.' : ''}
        </>
      }
    >
      <Form
        method="post"
        action={action}
        preventScrollReset
        aria-labelledby={OVERLAY_TITLE_ID}
        className="flex justify-end gap-3"
      >
        <input type="hidden" name={video ? 'videoId' : 'documentId'} value={entry._id} />
        <DeleteButtons closeTo={closeTo} busy={busy} />
      </Form>
    </Overlay>
  )
}

/** About 1000 px wide: what /files serves inline (PDFs, images) shown, other types by download. */
export function ViewDocumentDialog({ document, closeTo }: { document: DocumentDto; closeTo: string }) {
  const name = document.document.name
  const inline = isInlineType(document.contentType)
  return (
    <Overlay title={name} closeTo={closeTo} size="xl">
      {inline ? (
        <iframe
          src={document.document.link}
          title={name}
          className="h-[70vh] w-full rounded-md border border-slate-200"
        />
      ) : (
        <p className="rounded-md bg-slate-50 p-6 text-sm text-slate-600">
          This file cannot be shown in the browser. Download it to open it.
        </p>
      )}
      <div className="mt-4 flex justify-end">
        <a href={document.document.link} download={name} className="btn-primary">
          Download
        </a>
      </div>
    </Overlay>
  )
}
