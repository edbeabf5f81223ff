import { json, type ActionFunctionArgs, type LoaderFunctionArgs, type MetaFunction } from '@remix-run/node'
import { useActionData, useLoaderData } from '@remix-run/react'
import { RearrangeForm } from '#app/components/admin/rearrange-form.tsx'
import { GeneralErrorBoundary } from '#app/components/error-boundary.tsx'
import { getCourseDetail } from '#app/modules/courses/admin.server.ts'
import { courseLabs, reorderLabs } from '#app/modules/labs/admin.server.ts'
import { PRODUCT_NAME } from '#app/utils/brand.ts'
import { pageAction } from '#app/utils/forms.server.ts'
import { pageLoader } from '#app/utils/pages.server.ts'
import { requireContentManager } from '#app/utils/session.server.ts'
import { savePostedOrder, type OrderReply } from './__rearrange.server.ts'

// A course's labs put in order, as its documents and scenarios are (RearrangeDocs): drag, keyboard or
// Move up/down with JavaScript, position numbers without it.

export const meta: MetaFunction = () => [{ title: `Rearrange Labs · ${PRODUCT_NAME}` }]

export const loader = (args: LoaderFunctionArgs) => pageLoader(args, loadPage)

async function loadPage({ request, params }: LoaderFunctionArgs) {
  const user = await requireContentManager(request, `/admin/course/${params.courseId}`)
  const course = await getCourseDetail(user, params.courseId ?? '')
  const labs = await courseLabs(user, course._id)
  return json({
    course: { id: course._id, title: course.title },
    items: labs.map((l) => ({ id: l.id, label: l.title })),
  })
}

export const action = (args: ActionFunctionArgs) => pageAction(args, runAction)

async function runAction({ request, params }: ActionFunctionArgs) {
  const courseId = params.courseId ?? ''
  const user = await requireContentManager(request, `/admin/course/${courseId}`)
  return savePostedOrder(
    request,
    (items) => reorderLabs(user, { courseId, ids: items.map((item) => item._id) }),
    `/admin/course/${courseId}?tab=labs`,
  )
}

export default function RearrangeLabs() {
  const { course, items } = useLoaderData<typeof loader>()
  const actionData = useActionData<OrderReply>()
  return (
    <RearrangeForm
      title={`Rearrange Labs: ${course.title}`}
      listLabel="Labs"
      items={items}
      backTo={`/admin/course/${course.id}?tab=labs`}
      error={actionData?.message}
    />
  )
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />
}
