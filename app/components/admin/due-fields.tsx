import { getInputProps, type FieldMetadata } from '@conform-to/react'
import { Field } from '#app/components/ui/field.tsx'

// The due date of the admin pages' assigning forms: a day and an optional time, in the learner's time zone.

export type DueFieldMeta = FieldMetadata<string, Record<string, unknown>, string[]>

/** A day and an optional time, with the zone they are read in said next to them. */
export function DueFields({
  dueDate,
  dueTime,
  timeZone,
}: {
  dueDate: DueFieldMeta
  dueTime: DueFieldMeta
  /** the learner's zone; none when the form assigns several learners, each read in their own */
  timeZone: string | null
}) {
  return (
    <fieldset className="space-y-1">
      <legend className="field-label">Due date (optional)</legend>
      <p className="text-sm text-slate-600">
        {timeZone
          ? `Due dates are in the learner’s time zone: ${timeZone}.`
          : 'Due dates are in each learner’s own time zone.'}{' '}
        Without a time, due at the end of the day.
      </p>
      <div className="grid gap-x-3 sm:grid-cols-2">
        <Field label="Day" errors={dueDate.errors} inputProps={getInputProps(dueDate, { type: 'date' })} />
        <Field label="Time (optional)" errors={dueTime.errors} inputProps={getInputProps(dueTime, { type: 'time' })} />
      </div>
    </fieldset>
  )
}
