import { getFormProps, getInputProps, getTextareaProps, useForm } from '@conform-to/react'
import { parseWithZod } from '@conform-to/zod'
import { json, type ActionFunctionArgs, type LoaderFunctionArgs, type MetaFunction } from '@remix-run/node'
import { Form, useActionData, useLoaderData, useNavigation } from '@remix-run/react'
import { useState } from 'react'
import { GeneralErrorBoundary } from '#app/components/error-boundary.tsx'
import { Breadcrumb } from '#app/components/ui/breadcrumb.tsx'
import { Field, TextareaField } from '#app/components/ui/field.tsx'
import { FileUpload } from '#app/components/ui/file-upload.tsx'
import { FormFooter } from '#app/components/ui/form-footer.tsx'
import { createCourse } from '#app/modules/courses/admin.server.ts'
import { NewCourseSchema } from '#app/modules/courses/schema.ts'
import { uploadRules } from '#app/modules/files/types.server.ts'
import { PRODUCT_NAME } from '#app/utils/brand.ts'
import { pageAction, type FormReply, submitUploadForm } from '#app/utils/forms.server.ts'
import { pageLoader } from '#app/utils/pages.server.ts'
import { requireContentManager } from '#app/utils/session.server.ts'
import { redirectWithSuccess } from '#app/utils/toast.server.ts'

export const meta: MetaFunction = () => [{ title: `Add New Course · ${PRODUCT_NAME}` }]

export const loader = (args: LoaderFunctionArgs) => pageLoader(args, loadPage)

async function loadPage({ request }: LoaderFunctionArgs) {
  await requireContentManager(request)
  return json({ upload: uploadRules('courseImage') })
}

export const action = (args: ActionFunctionArgs) => pageAction(args, runAction)

async function runAction({ request }: ActionFunctionArgs) {
  const user = await requireContentManager(request)
  const created = await submitUploadForm(request, {
    upload: { kind: 'courseImage', fileField: 'courseImage', actor: user },
    field: 'courseImage',
    parse: (formData) => parseWithZod(formData, { schema: NewCourseSchema }),
    run: (value) => createCourse(user, value),
  })
  if (!created.ok) return created.response
  return redirectWithSuccess(`/admin/course/${created.value._id}`, 'Course created.')
}

export default function NewCourse() {
  const { upload } = useLoaderData<typeof loader>()
  const actionData = useActionData<FormReply>()
  const navigation = useNavigation()
  const [uploading, setUploading] = useState(false)
  const [form, fields] = useForm({
    id: 'new-course',
    lastResult: actionData?.result,
    onValidate: ({ formData }) => parseWithZod(formData, { schema: NewCourseSchema }),
    shouldValidate: 'onBlur',
    shouldRevalidate: 'onInput',
  })
  const saving = navigation.state !== 'idle' && navigation.formMethod === 'POST'
  return (
    <div className="max-w-2xl">
      <Breadcrumb items={[{ label: 'Courses', to: '/admin/courses' }, { label: 'Add New Course' }]} />
      <h1 className="mt-2 text-2xl font-bold">Add New Course</h1>
      <Form method="post" encType="multipart/form-data" className="card mt-6 space-y-2 p-6" {...getFormProps(form)}>
        <Field
          label="Course Title"
          errors={fields.title.errors}
          inputProps={getInputProps(fields.title, { type: 'text' })}
        />
        <TextareaField
          label="Description"
          errors={fields.description.errors}
          textareaProps={getTextareaProps(fields.description)}
        />
        <FileUpload
          label="Course Image"
          name="courseImage"
          fileFieldName="courseImage"
          action="/api/category/addCourseImage"
          accept={upload.accept}
          hint={upload.hint}
          errors={fields.courseImage.errors}
          onUploadingChange={setUploading}
        />
        <FormFooter
          errorId={form.errorId}
          error={form.errors?.[0]}
          saving={saving}
          busy={uploading}
          cancelTo="/admin/courses"
        />
      </Form>
    </div>
  )
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />
}
