import { parseWithZod } from '@conform-to/zod'
import { json, type ActionFunctionArgs, type LoaderFunctionArgs, type MetaFunction } from '@remix-run/node'
import { useActionData, useFetcher, useLoaderData } from '@remix-run/react'
import { VideoFields } from '#app/components/admin/video-fields.tsx'
import { GeneralErrorBoundary } from '#app/components/error-boundary.tsx'
import { FormSelectField } from '#app/components/forms/fields.tsx'
import { PageForm } from '#app/components/forms/page-form.tsx'
import { useZodForm } from '#app/components/forms/use-zod-form.ts'
import { NewVideoSchema } from '#app/modules/content/schema.ts'
import { createVideo } from '#app/modules/content/service.server.ts'
import { getCourseDetail } from '#app/modules/courses/admin.server.ts'
import { listCourseTitles } from '#app/modules/courses/catalogue.server.ts'
import { isUuid } from '#app/modules/ids.ts'
import { PRODUCT_NAME } from '#app/utils/brand.ts'
import { pageAction, invalidForm, readForm, submitToService, type FormReply } from '#app/utils/forms.server.ts'
import { pageLoader } from '#app/utils/pages.server.ts'
import { requireContentManager } from '#app/utils/session.server.ts'
import { redirectWithSuccess } from '#app/utils/toast.server.ts'

export const meta: MetaFunction = () => [{ title: `Add New Video · ${PRODUCT_NAME}` }]

export const loader = (args: LoaderFunctionArgs) => pageLoader(args, loadPage)

async function loadPage({ request }: LoaderFunctionArgs) {
  const user = await requireContentManager(request)
  const { rows: courses } = await listCourseTitles(user)
  const courseId = new URL(request.url).searchParams.get('courseId') ?? ''
  const chosen = isUuid(courseId) && courses.some((c) => c._id === courseId) ? courseId : ''
  // prerequisites are picked from the chosen course's videos
  const videos = chosen ? (await getCourseDetail(user, chosen)).videos.map((v) => ({ id: v._id, title: v.title })) : []
  return json({ courses, courseId: chosen, videos })
}

export const action = (args: ActionFunctionArgs) => pageAction(args, runAction)

async function runAction({ request }: ActionFunctionArgs) {
  const user = await requireContentManager(request)
  const submission = parseWithZod(await readForm(request), { schema: NewVideoSchema })
  if (submission.status !== 'success') return invalidForm(submission)
  const created = await submitToService(submission, () => createVideo(user, submission.value))
  if (!created.ok) return created.response
  return redirectWithSuccess(
    `/admin/course/${created.value.relatedCourse}?tab=videos`,
    `Video "${created.value.title}" added.`,
  )
}

export default function NewVideo() {
  const { courses, courseId, videos } = useLoaderData<typeof loader>()
  const actionData = useActionData<FormReply>()
  // another course chosen: its videos are fetched as the prerequisites on offer, nothing typed is lost
  const other = useFetcher<typeof loader>()
  const candidates = other.data?.videos ?? videos
  const [form, fields] = useZodForm(NewVideoSchema, {
    id: 'new-video',
    lastResult: actionData?.result,
    defaultValue: { relatedCourse: courseId },
  })
  const course = courses.find((c) => c._id === courseId)
  return (
    <PageForm
      form={form}
      heading="Add New Video"
      breadcrumb={[
        { label: 'Courses', to: '/admin/courses' },
        ...(course ? [{ label: course.title, to: `/admin/course/${course._id}` }] : []),
        { label: 'Add New Video' },
      ]}
      className="card mt-6 space-y-1 p-6"
      cancelTo={course ? `/admin/course/${course._id}` : '/admin/courses'}
    >
      <FormSelectField
        meta={fields.relatedCourse}
        label="Video Related Course"
        placeholder="Select a course"
        options={courses.map((c) => ({ value: c._id, label: c.title }))}
        onChange={(event) => other.load(`/admin/newVideo?courseId=${encodeURIComponent(event.currentTarget.value)}`)}
      />
      <VideoFields fields={fields} candidates={candidates} />
    </PageForm>
  )
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />
}
