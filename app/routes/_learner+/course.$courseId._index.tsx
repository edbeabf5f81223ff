import { Disclosure, DisclosureButton, DisclosurePanel } from '@headlessui/react'
import { json, type LoaderFunctionArgs, type MetaFunction } from '@remix-run/node'
import { Link, useLoaderData } from '@remix-run/react'
import { CourseImage } from '#app/components/course/course-image.tsx'
import { ProgressBar } from '#app/components/course/progress-bar.tsx'
import { FileList, VideoList } from '#app/components/course/video-list.tsx'
import { GeneralErrorBoundary } from '#app/components/error-boundary.tsx'
import { PRODUCT_NAME } from '#app/utils/brand.ts'
import { formatDuration, NO_DURATION } from '#app/utils/format.ts'
import { loadCourse } from './__course.server.ts'

export const meta: MetaFunction<typeof loader> = ({ data }) => [
  { title: `${data?.course.title ?? 'Course'} · ${PRODUCT_NAME}` },
]

export async function loader({ request, params }: LoaderFunctionArgs) {
  const { course } = await loadCourse(request, params.courseId ?? '')
  return json({ course })
}

export default function CoursePage() {
  const { course } = useLoaderData<typeof loader>()
  const next = course.videos.find((v) => !v.completed && v.lockedBy.length === 0) ?? course.videos[0]
  return (
    <div className="grid gap-8 lg:grid-cols-[1fr_22rem]">
      <div className="space-y-6">
        <nav aria-label="Breadcrumb" className="text-sm text-slate-500">
          <Link to="/courses" className="hover:underline">
            My Courses
          </Link>{' '}
          / <span className="text-slate-700">{course.title}</span>
        </nav>
        <h1 className="text-3xl font-bold">{course.title}</h1>
        <p className="whitespace-pre-line text-slate-700">{course.description}</p>
        <section className="card" aria-labelledby="contents-heading">
          <Disclosure defaultOpen>
            <DisclosureButton className="flex w-full items-center justify-between px-4 py-3 text-left">
              <h2 id="contents-heading" className="font-semibold">
                Contents
              </h2>
              <span className="text-sm text-slate-500">
                {course.videos.length} videos · {course.duration ? formatDuration(course.duration) : NO_DURATION}
              </span>
            </DisclosureButton>
            <DisclosurePanel className="border-t border-slate-100">
              <VideoList courseId={course.id} videos={course.videos} />
            </DisclosurePanel>
          </Disclosure>
        </section>
        <section className="card" aria-labelledby="documents-heading">
          <h2 id="documents-heading" className="border-b border-slate-100 px-4 py-3 font-semibold">
            Documents
          </h2>
          <FileList items={course.documents} empty="No Documents found" />
        </section>
        <section className="card" aria-labelledby="scenarios-heading">
          <h2 id="scenarios-heading" className="border-b border-slate-100 px-4 py-3 font-semibold">
            Scenarios
          </h2>
          <FileList items={course.scenarios} empty="No Scenarios found" />
        </section>
      </div>
      <aside className="card h-fit overflow-hidden">
        <CourseImage src={course.imageUrl} title={course.title} />
        <div className="space-y-4 p-5">
          <ProgressBar percent={course.percent} label="Course progress" />
          {next ? (
            <Link to={`/course/${course.id}/${next.id}`} className="btn-primary w-full">
              {course.percent > 0 ? 'Continue' : 'Start Course'}
            </Link>
          ) : null}
        </div>
      </aside>
    </div>
  )
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />
}
