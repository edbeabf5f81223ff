import { type SubmissionResult } from '@conform-to/react'
import { useCallback } from 'react'
import { FormField, FormFileField, FormTextareaField } from '#app/components/forms/fields.tsx'
import { PageForm } from '#app/components/forms/page-form.tsx'
import { initialValues, useZodForm } from '#app/components/forms/use-zod-form.ts'
import { type UploadRules } from '#app/components/ui/file-upload.tsx'
import { Toggle } from '#app/components/ui/toggle.tsx'
import type { FileInfoDto } from '#app/modules/content/dto.ts'
import { NewProgramSchema } from '#app/modules/programs/schema.ts'
import { ProgramCourses } from './program-courses.tsx'

/** A program's fields as the edit form starts with them. */
type ProgramFormValues = {
  title: string
  path: string
  learningPath: string
  duration: string
  description: string
  price: number | null
  courses: string[]
  programImage: FileInfoDto | null
  /** the reminders switch, shown to those who may change it */
  reminders?: boolean
}

/**
 * The page of Add New Program and Edit Program: the same fields, checks and messages (NewProgramSchema),
 * posted as multipart so that an image can come with it before or without JavaScript. Editing, the
 * current image is kept unless another one is chosen, and an admin may switch reminders on or off.
 */
export function ProgramForm({
  id,
  heading,
  breadcrumb,
  courses,
  upload,
  lastResult,
  cancelTo,
  program,
}: {
  id: string
  heading: string
  breadcrumb: { label: string; to?: string }[]
  /** every course that may be chosen; the edit page lists the program's own first, in their order */
  courses: { _id: string; title: string }[]
  upload: UploadRules
  lastResult?: SubmissionResult<string[]>
  cancelTo: string
  /** the program being edited; none for a new one */
  program?: ProgramFormValues
}) {
  const [form, fields] = useZodForm(NewProgramSchema, {
    id,
    lastResult,
    defaultValue: program
      ? {
          title: program.title,
          path: program.path,
          learningPath: program.learningPath,
          duration: program.duration,
          description: program.description,
          price: program.price === null ? '' : String(program.price),
          courses: program.courses,
          programImage: program.programImage ? JSON.stringify(program.programImage) : '',
        }
      : undefined,
  })
  const coursesTouched = Boolean(fields.courses.errors)
  const revalidateCourses = useCallback(() => {
    // the checkboxes are not the posted fields, so conform does not see them change: ask it
    if (coursesTouched) form.validate({ name: fields.courses.name })
  }, [coursesTouched, form, fields.courses.name])

  return (
    <PageForm form={form} heading={heading} breadcrumb={breadcrumb} multipart cancelTo={cancelTo}>
      <FormField meta={fields.title} label="Program Name" />
      <FormField meta={fields.path} label="Program Path" />
      <FormField meta={fields.learningPath} label="Program Learning Path" />
      <FormField meta={fields.duration} label="Program Duration" placeholder="e.g. 12 weeks" />
      <FormTextareaField meta={fields.description} label="Program Description" />
      <FormField meta={fields.price} label="Price" type="number" min={0} step="0.01" inputMode="decimal" />
      <ProgramCourses
        courses={courses}
        defaultValue={initialValues(fields.courses.initialValue)}
        errors={fields.courses.errors}
        onChange={revalidateCourses}
      />
      {program?.reminders === undefined ? null : (
        <div className="pb-4">
          <Toggle
            name="reminders"
            label="Send reminders about due dates"
            onLabel="On"
            offLabel="Off"
            defaultChecked={(fields.reminders?.initialValue ?? String(program.reminders)) === 'true'}
          />
          <p className="mt-1 text-sm text-slate-600">
            Off: learners get no reminder mails about this program, whatever its due dates.
          </p>
        </div>
      )}
      {/* last in the form, so an image refused on arrival leaves every other field readable */}
      <FormFileField
        meta={fields.programImage}
        label="Program Image (optional)"
        kind="image"
        upload={upload}
        hint={program?.programImage ? `${upload.hint}; leave it to keep the current image` : upload.hint}
        defaultFileInfo={program?.programImage ?? null}
      />
    </PageForm>
  )
}
