import { json, type ActionFunctionArgs, type LoaderFunctionArgs, type MetaFunction } from '@remix-run/node'
import { useActionData, useLoaderData } from '@remix-run/react'
import { RearrangeForm } from '#app/components/admin/rearrange-form.tsx'
import { GeneralErrorBoundary } from '#app/components/error-boundary.tsx'
import { getCourseDetail } from '#app/modules/courses/admin.server.ts'
import { PRODUCT_NAME } from '#app/utils/brand.ts'
import { pageAction } from '#app/utils/forms.server.ts'
import { pageLoader } from '#app/utils/pages.server.ts'
import { requireContentManager } from '#app/utils/session.server.ts'
import { saveOrder, type OrderReply } from './__rearrange.server.ts'

export const meta: MetaFunction = () => [{ title: `Rearrange · ${PRODUCT_NAME}` }]

// The old client passed the list in navigation state; here ?type=document|scenarios says which
// list, so the page also works when opened directly or reloaded.
const scenariosWanted = (request: Request) => new URL(request.url).searchParams.get('type') === 'scenarios'

export const loader = (args: LoaderFunctionArgs) => pageLoader(args, loadPage)

async function loadPage({ request, params }: LoaderFunctionArgs) {
  const user = await requireContentManager(request, `/admin/course/${params.courseId}`)
  const course = await getCourseDetail(user, params.courseId ?? '')
  const scenarios = scenariosWanted(request)
  const list = scenarios ? course.scenarios : course.documents
  return json({
    course: { id: course._id, title: course.title },
    scenarios,
    items: list.map((d) => ({ id: d._id, label: d.document.name })),
  })
}

export const action = (args: ActionFunctionArgs) => pageAction(args, runAction)

async function runAction({ request, params }: ActionFunctionArgs) {
  const courseId = params.courseId ?? ''
  const user = await requireContentManager(request, `/admin/course/${courseId}`)
  const scenarios = scenariosWanted(request)
  return saveOrder(
    user,
    request,
    { courseId, kind: scenarios ? 'scenario' : 'document' },
    `/admin/course/${courseId}?tab=${scenarios ? 'scenarios' : 'documents'}`,
  )
}

export default function RearrangeDocs() {
  const { course, scenarios, items } = useLoaderData<typeof loader>()
  const actionData = useActionData<OrderReply>()
  return (
    <RearrangeForm
      key={scenarios ? 'scenarios' : 'documents'}
      title={`${scenarios ? 'Rearrange Scenarios' : 'Rearrange Documents'}: ${course.title}`}
      listLabel={scenarios ? 'Scenarios' : 'Documents'}
      items={items}
      backTo={`/admin/course/${course.id}?tab=${scenarios ? 'scenarios' : 'documents'}`}
      error={actionData?.message}
    />
  )
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />
}
