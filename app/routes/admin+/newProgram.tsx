import { getFormProps, getInputProps, getTextareaProps, useForm } from '@conform-to/react'
import { parseWithZod } from '@conform-to/zod'
import { json, type ActionFunctionArgs, type LoaderFunctionArgs, type MetaFunction } from '@remix-run/node'
import { Form, useActionData, useLoaderData, useNavigation } from '@remix-run/react'
import { useCallback, useState } from 'react'
import { ProgramCourses } from '#app/components/admin/program-courses.tsx'
import { GeneralErrorBoundary } from '#app/components/error-boundary.tsx'
import { Breadcrumb } from '#app/components/ui/breadcrumb.tsx'
import { Field, TextareaField } from '#app/components/ui/field.tsx'
import { FileUpload } from '#app/components/ui/file-upload.tsx'
import { FormFooter } from '#app/components/ui/form-footer.tsx'
import { listCourseTitles } from '#app/modules/courses/catalogue.server.ts'
import { uploadRules } from '#app/modules/files/types.server.ts'
import { NewProgramSchema } from '#app/modules/programs/schema.ts'
import { createProgram } from '#app/modules/programs/service.server.ts'
import { PRODUCT_NAME } from '#app/utils/brand.ts'
import { pageAction, type FormReply, submitUploadForm } from '#app/utils/forms.server.ts'
import { pageLoader } from '#app/utils/pages.server.ts'
import { requireContentManager } from '#app/utils/session.server.ts'
import { redirectWithSuccess } from '#app/utils/toast.server.ts'

export const meta: MetaFunction = () => [{ title: `Add New Program · ${PRODUCT_NAME}` }]

export const loader = (args: LoaderFunctionArgs) => pageLoader(args, loadPage)

async function loadPage({ request }: LoaderFunctionArgs) {
  const user = await requireContentManager(request, '/admin/programs')
  return json({ courses: (await listCourseTitles(user)).rows, upload: uploadRules('courseImage') })
}

const COURSE_AT = /^courses\[(\d{1,4})\]$/

/**
 * The form as the schema reads it: the chosen courses, posted as `courses[position]`, become one
 * repeated `courses` field in that order.
 */
function programForm(fields: Record<string, string>) {
  const formData = new FormData()
  const courses: [number, string][] = []
  for (const [name, value] of Object.entries(fields)) {
    const course = COURSE_AT.exec(name)
    if (course) courses.push([Number(course[1]), value])
    else formData.set(name, value)
  }
  for (const [, courseId] of courses.sort(([a], [b]) => a - b)) formData.append('courses', courseId)
  return formData
}

const parse = (formData: FormData) => parseWithZod(formData, { schema: NewProgramSchema })

export const action = (args: ActionFunctionArgs) => pageAction(args, runAction)

async function runAction({ request }: ActionFunctionArgs) {
  const user = await requireContentManager(request, '/admin/programs')
  // programs reuse the course image upload: the image comes with the form as `courseImage` (no
  // JavaScript) or was uploaded before through /api/category/addCourseImage (its JSON in `programImage`)
  const created = await submitUploadForm(request, {
    upload: { kind: 'courseImage', fileField: 'courseImage', actor: user },
    field: 'programImage',
    parse,
    toFormData: programForm,
    run: (value) => createProgram(user, value),
  })
  if (!created.ok) return created.response
  return redirectWithSuccess('/admin/programs', 'Program created.')
}

/** The courses of a form shown again, whether conform read one or several. */
function courseIds(value: unknown): string[] {
  const list = Array.isArray(value) ? value : [value]
  return list.filter((item): item is string => typeof item === 'string')
}

export default function NewProgram() {
  const { courses, upload } = useLoaderData<typeof loader>()
  const actionData = useActionData<FormReply>()
  const navigation = useNavigation()
  const [uploading, setUploading] = useState(false)
  const [form, fields] = useForm({
    id: 'new-program',
    lastResult: actionData?.result,
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
    <div className="max-w-2xl">
      <Breadcrumb items={[{ label: 'Programs', to: '/admin/programs' }, { label: 'Add New Program' }]} />
      <h1 className="mt-2 text-2xl font-bold">Add New Program</h1>
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
          hint={upload.hint}
          errors={fields.programImage.errors}
          onUploadingChange={setUploading}
        />
        <FormFooter
          errorId={form.errorId}
          error={form.errors?.[0]}
          saving={saving}
          busy={uploading}
          cancelTo="/admin/programs"
        />
      </Form>
    </div>
  )
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />
}
