import { json, type ActionFunctionArgs, type LoaderFunctionArgs, type MetaFunction } from '@remix-run/node'
import { useActionData, useLoaderData } from '@remix-run/react'
import { RearrangeForm } from '#app/components/admin/rearrange-form.tsx'
import { GeneralErrorBoundary } from '#app/components/error-boundary.tsx'
import { getCourseDetail } from '#app/modules/courses/admin.server.ts'
import { PRODUCT_NAME } from '#app/utils/brand.ts'
import { requireContentManager } from '#app/utils/session.server.ts'
import { orPageNotFound } from '#app/utils/pages.server.ts'
import { saveOrder } from './__rearrange.server.ts'

export const meta: MetaFunction = () => [{ title: `Rearrange Course · ${PRODUCT_NAME}` }]

export async function loader({ request, params }: LoaderFunctionArgs) {
  const user = await requireContentManager(request, `/admin/course/${params.courseId}`)
  const course = await orPageNotFound(() => getCourseDetail(user, params.courseId ?? ''))
  return json({
    course: { id: course._id, title: course.title },
    items: course.videos.map((v) => ({ id: v._id, label: v.title })),
  })
}

export async function action({ request, params }: ActionFunctionArgs) {
  const courseId = params.courseId ?? ''
  const user = await requireContentManager(request, `/admin/course/${courseId}`)
  return saveOrder(user, request, { courseId, kind: 'video' }, `/admin/course/${courseId}?tab=videos`)
}

export default function RearrangeCourse() {
  const { course, items } = useLoaderData<typeof loader>()
  const actionData = useActionData<{ error?: string }>()
  return (
    <RearrangeForm
      title={`Rearrange Course: ${course.title}`}
      listLabel="Course videos"
      items={items}
      backTo={`/admin/course/${course.id}?tab=videos`}
      error={actionData?.error}
    />
  )
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />
}
