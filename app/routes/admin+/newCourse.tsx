import { getFormProps, useForm } from '@conform-to/react'
import { parseWithZod } from '@conform-to/zod'
import { json, type ActionFunctionArgs, type LoaderFunctionArgs, type MetaFunction } from '@remix-run/node'
import { Form, useActionData, useLoaderData, useNavigation } from '@remix-run/react'
import { useState } from 'react'
import { GeneralErrorBoundary } from '#app/components/error-boundary.tsx'
import { FormField, FormFileField, FormTextareaField } from '#app/components/forms/fields.tsx'
import { Breadcrumb } from '#app/components/ui/breadcrumb.tsx'
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
      <h1 id="new-course-heading" className="mt-2 text-2xl font-bold">
        Add New Course
      </h1>
      <Form
        method="post"
        encType="multipart/form-data"
        className="card mt-6 space-y-2 p-6"
        aria-labelledby="new-course-heading"
        {...getFormProps(form)}
      >
        <FormField meta={fields.title} label="Course Title" />
        <FormTextareaField meta={fields.description} label="Description" />
        <FormFileField
          meta={fields.courseImage}
          label="Course Image"
          kind="image"
          upload={upload}
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
