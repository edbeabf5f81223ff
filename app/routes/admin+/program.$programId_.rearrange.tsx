import { json, type ActionFunctionArgs, type LoaderFunctionArgs, type MetaFunction } from '@remix-run/node'
import { useActionData, useLoaderData } from '@remix-run/react'
import { RearrangeForm } from '#app/components/admin/rearrange-form.tsx'
import { GeneralErrorBoundary } from '#app/components/error-boundary.tsx'
import { getProgram, reorderProgram } from '#app/modules/programs/service.server.ts'
import { PRODUCT_NAME } from '#app/utils/brand.ts'
import { pageAction } from '#app/utils/forms.server.ts'
import { pageLoader } from '#app/utils/pages.server.ts'
import { requireContentManager } from '#app/utils/session.server.ts'
import { savePostedOrder, type OrderReply } from './__rearrange.server.ts'

export const meta: MetaFunction = () => [{ title: `Rearrange Program · ${PRODUCT_NAME}` }]

export const loader = (args: LoaderFunctionArgs) => pageLoader(args, loadPage)

async function loadPage({ request, params }: LoaderFunctionArgs) {
  const programId = params.programId ?? ''
  const user = await requireContentManager(request, `/admin/program/${encodeURIComponent(programId)}`)
  const program = await getProgram(user, programId)
  return json({
    program: { id: program._id, title: program.title },
    items: program.courses.map((c) => ({ id: c._id, label: c.title })),
  })
}

export const action = (args: ActionFunctionArgs) => pageAction(args, runAction)

async function runAction({ request, params }: ActionFunctionArgs) {
  const programId = params.programId ?? ''
  const user = await requireContentManager(request, `/admin/program/${encodeURIComponent(programId)}`)
  return savePostedOrder(
    request,
    (courses) => reorderProgram(user, { programId, courses }),
    `/admin/program/${encodeURIComponent(programId)}`,
  )
}

export default function RearrangeProgram() {
  const { program, items } = useLoaderData<typeof loader>()
  const actionData = useActionData<OrderReply>()
  return (
    <RearrangeForm
      title={`Rearrange Program: ${program.title}`}
      listLabel="Program courses"
      items={items}
      backTo={`/admin/program/${program.id}`}
      error={actionData?.message}
    />
  )
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />
}
