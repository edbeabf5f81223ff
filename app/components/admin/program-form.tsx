import { getFormProps, getInputProps, getTextareaProps, useForm, type SubmissionResult } from '@conform-to/react'
import { parseWithZod } from '@conform-to/zod'
import { Form, useNavigation } from '@remix-run/react'
import { useCallback, useState } from 'react'
import { Field, TextareaField } from '#app/components/ui/field.tsx'
import { FileUpload, type UploadRules } from '#app/components/ui/file-upload.tsx'
import { FormFooter } from '#app/components/ui/form-footer.tsx'
import type { FileInfoDto } from '#app/modules/content/dto.ts'
import { NewProgramSchema } from '#app/modules/programs/schema.ts'
import { ProgramCourses } from './program-courses.tsx'

/** A program's fields as the edit form starts with them. */
export type ProgramFormValues = {
  title: string
  path: string
  learningPath: string
  duration: string
  description: string
  price: number | null
  courses: string[]
  programImage: FileInfoDto | null
}

/** The courses of a form shown again, whether conform read one or several. */
function courseIds(value: unknown): string[] {
  const list = Array.isArray(value) ? value : [value]
  return list.filter((item): item is string => typeof item === 'string')
}

/**
 * The program form of Add New Program and Edit Program: the same fields, checks and messages
 * (NewProgramSchema), posted as multipart so that an image can come with it before or without JavaScript.
 * Editing, the current image is kept unless another one is chosen.
 */
export function ProgramForm({
  id,
  courses,
  upload,
  lastResult,
  cancelTo,
  program,
}: {
  id: string
  /** every course that may be chosen; the edit page lists the program's own first, in their order */
  courses: { _id: string; title: string }[]
  upload: UploadRules
  lastResult?: SubmissionResult<string[]>
  cancelTo: string
  /** the program being edited; none for a new one */
  program?: ProgramFormValues
}) {
  const navigation = useNavigation()
  const [uploading, setUploading] = useState(false)
  const [form, fields] = useForm({
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
    onValidate: ({ formData }) => parseWithZod(formData, { schema: NewProgramSchema }),
    shouldValidate: 'onBlur',
    shouldRevalidate: 'onInput',
  })
  const saving = navigation.state !== 'idle' && navigation.formMethod === 'POST'
  const coursesTouched = Boolean(fields.courses.errors)
  const revalidateCourses = useCallback(() => {
    // the checkboxes are not the posted fields, so conform does not see them change: ask it
    if (coursesTouched) form.validate({ name: fields.courses.name })
  }, [coursesTouched, form, fields.courses.name])

  return (
    <Form method="post" encType="multipart/form-data" className="card mt-6 space-y-2 p-6" {...getFormProps(form)}>
      <Field
        label="Program Name"
        errors={fields.title.errors}
        inputProps={getInputProps(fields.title, { type: 'text' })}
      />
      <Field
        label="Program Path"
        errors={fields.path.errors}
        inputProps={getInputProps(fields.path, { type: 'text' })}
      />
      <Field
        label="Program Learning Path"
        errors={fields.learningPath.errors}
        inputProps={getInputProps(fields.learningPath, { type: 'text' })}
      />
      <Field
        label="Program Duration"
        errors={fields.duration.errors}
        inputProps={{ ...getInputProps(fields.duration, { type: 'text' }), placeholder: 'e.g. 12 weeks' }}
      />
      <TextareaField
        label="Program Description"
        errors={fields.description.errors}
        textareaProps={getTextareaProps(fields.description)}
      />
      <Field
        label="Price"
        errors={fields.price.errors}
        inputProps={{
          ...getInputProps(fields.price, { type: 'number' }),
          min: 0,
          step: '0.01',
          inputMode: 'decimal',
        }}
      />
      <ProgramCourses
        courses={courses}
        defaultValue={courseIds(fields.courses.initialValue)}
        errors={fields.courses.errors}
        onChange={revalidateCourses}
      />
      {/* last in the form, so an image refused on arrival leaves every other field readable */}
      <FileUpload
        label="Program Image (optional)"
        name="programImage"
        fileFieldName="courseImage"
        action="/api/category/addCourseImage"
        accept={upload.accept}
        hint={program?.programImage ? `${upload.hint}; leave it to keep the current image` : upload.hint}
        defaultFileInfo={program?.programImage ?? null}
        errors={fields.programImage.errors}
        onUploadingChange={setUploading}
      />
      <FormFooter
        errorId={form.errorId}
        error={form.errors?.[0]}
        saving={saving}
        busy={uploading}
        cancelTo={cancelTo}
      />
    </Form>
  )
}
