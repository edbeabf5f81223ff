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

export const meta: MetaFunction = () => [{ title: `Rearrange Course · ${PRODUCT_NAME}` }]

export const loader = (args: LoaderFunctionArgs) => pageLoader(args, loadPage)

async function loadPage({ request, params }: LoaderFunctionArgs) {
  const user = await requireContentManager(request, `/admin/course/${params.courseId}`)
  const course = await getCourseDetail(user, params.courseId ?? '')
  return json({
    course: { id: course._id, title: course.title },
    items: course.videos.map((v) => ({ id: v._id, label: v.title })),
  })
}

export const action = (args: ActionFunctionArgs) => pageAction(args, runAction)

async function runAction({ request, params }: ActionFunctionArgs) {
  const courseId = params.courseId ?? ''
  const user = await requireContentManager(request, `/admin/course/${courseId}`)
  return saveOrder(user, request, { courseId, kind: 'video' }, `/admin/course/${courseId}?tab=videos`)
}

export default function RearrangeCourse() {
  const { course, items } = useLoaderData<typeof loader>()
  const actionData = useActionData<OrderReply>()
  return (
    <RearrangeForm
      title={`Rearrange Course: ${course.title}`}
      listLabel="Course videos"
      items={items}
      backTo={`/admin/course/${course.id}?tab=videos`}
      error={actionData?.message}
    />
  )
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />
}
