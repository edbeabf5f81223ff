import { parseWithZod } from '@conform-to/zod'
import { json, type ActionFunctionArgs, type LoaderFunctionArgs, type MetaFunction } from '@remix-run/node'
import { useActionData, useLoaderData } from '@remix-run/react'
import { ProgramForm } from '#app/components/admin/program-form.tsx'
import { GeneralErrorBoundary } from '#app/components/error-boundary.tsx'
import { listCourseTitles } from '#app/modules/courses/catalogue.server.ts'
import { uploadRules } from '#app/modules/files/types.server.ts'
import { programFormData } from '#app/modules/programs/form.ts'
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
    toFormData: programFormData,
    run: (value) => createProgram(user, value),
  })
  if (!created.ok) return created.response
  return redirectWithSuccess('/admin/programs', 'Program created.')
}

export default function NewProgram() {
  const { courses, upload } = useLoaderData<typeof loader>()
  const actionData = useActionData<FormReply>()
  return (
    <ProgramForm
      id="new-program"
      heading="Add New Program"
      breadcrumb={[{ label: 'Programs', to: '/admin/programs' }, { label: 'Add New Program' }]}
      courses={courses}
      upload={upload}
      lastResult={actionData?.result}
      cancelTo="/admin/programs"
    />
  )
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />
}
