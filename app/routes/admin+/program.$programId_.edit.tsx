import { parseWithZod } from '@conform-to/zod'
import { json, type ActionFunctionArgs, type LoaderFunctionArgs, type MetaFunction } from '@remix-run/node'
import { useActionData, useLoaderData } from '@remix-run/react'
import { ProgramForm } from '#app/components/admin/program-form.tsx'
import { GeneralErrorBoundary } from '#app/components/error-boundary.tsx'
import { can } from '#app/modules/auth/permissions.ts'
import { listCourseTitles } from '#app/modules/courses/catalogue.server.ts'
import { uploadRules } from '#app/modules/files/types.server.ts'
import { programFormData } from '#app/modules/programs/form.ts'
import { EditProgramSchema } from '#app/modules/programs/schema.ts'
import { editProgram, getProgram } from '#app/modules/programs/service.server.ts'
import { PRODUCT_NAME } from '#app/utils/brand.ts'
import { pageAction, type FormReply, submitUploadForm } from '#app/utils/forms.server.ts'
import { pageLoader } from '#app/utils/pages.server.ts'
import { requireContentManager } from '#app/utils/session.server.ts'
import { redirectWithSuccess } from '#app/utils/toast.server.ts'

export const meta: MetaFunction<typeof loader> = ({ data }) => [
  { title: `Edit ${data?.program.title ?? 'Program'} · ${PRODUCT_NAME}` },
]

export const loader = (args: LoaderFunctionArgs) => pageLoader(args, loadPage)

const programPage = (programId: string) => `/admin/program/${encodeURIComponent(programId)}`

async function loadPage({ request, params }: LoaderFunctionArgs) {
  const programId = params.programId ?? ''
  const user = await requireContentManager(request, programPage(programId))
  const program = await getProgram(user, programId)
  const all = (await listCourseTitles(user)).rows
  // the program's courses first, in their order: without JavaScript the form keeps the order listed
  const chosen = new Set(program.courses.map((c) => c._id))
  const courses = [
    ...program.courses.flatMap((c) => all.filter((course) => course._id === c._id)),
    ...all.filter((course) => !chosen.has(course._id)),
  ]
  return json({
    program,
    courses,
    upload: uploadRules('courseImage'),
    mayChangeReminders: can(user, 'manage:reminders'),
  })
}

export const action = (args: ActionFunctionArgs) => pageAction(args, runAction)

async function runAction({ request, params }: ActionFunctionArgs) {
  const programId = params.programId ?? ''
  const user = await requireContentManager(request, programPage(programId))
  // the image as on Add New Program: with the form as `courseImage`, or uploaded before (`programImage`)
  const edited = await submitUploadForm(request, {
    upload: { kind: 'courseImage', fileField: 'courseImage', actor: user },
    field: 'programImage',
    parse: (formData) => parseWithZod(formData, { schema: EditProgramSchema }),
    fixed: { programId },
    toFormData: programFormData,
    run: (value) => editProgram(user, value),
  })
  if (!edited.ok) return edited.response
  return redirectWithSuccess(programPage(programId), 'Program updated.')
}

export default function EditProgram() {
  const { program, courses, upload, mayChangeReminders } = useLoaderData<typeof loader>()
  const actionData = useActionData<FormReply>()
  const page = `/admin/program/${program._id}`
  return (
    <ProgramForm
      id="edit-program"
      heading="Edit Program"
      breadcrumb={[{ label: 'Programs', to: '/admin/programs' }, { label: program.title, to: page }, { label: 'Edit' }]}
      courses={courses}
      upload={upload}
      lastResult={actionData?.result}
      cancelTo={page}
      program={{
        ...program,
        courses: program.courses.map((c) => c._id),
        reminders: mayChangeReminders ? (program.reminders ?? true) : undefined,
      }}
    />
  )
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />
}
