import { parseWithZod } from '@conform-to/zod'
import { json, type ActionFunctionArgs, type LoaderFunctionArgs, type MetaFunction } from '@remix-run/node'
import { useActionData, useLoaderData } from '@remix-run/react'
import { GeneralErrorBoundary } from '#app/components/error-boundary.tsx'
import { FormField, FormFileField, FormTextareaField } from '#app/components/forms/fields.tsx'
import { PageForm } from '#app/components/forms/page-form.tsx'
import { useZodForm } from '#app/components/forms/use-zod-form.ts'
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
  const [form, fields] = useZodForm(NewCourseSchema, {
    id: 'new-course',
    lastResult: actionData?.result,
  })
  return (
    <PageForm
      form={form}
      heading="Add New Course"
      breadcrumb={[{ label: 'Courses', to: '/admin/courses' }, { label: 'Add New Course' }]}
      multipart
      cancelTo="/admin/courses"
    >
      <FormField meta={fields.title} label="Course Title" />
      <FormTextareaField meta={fields.description} label="Description" />
      <FormFileField meta={fields.courseImage} label="Course Image" kind="image" upload={upload} />
    </PageForm>
  )
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />
}
