import { json, type LoaderFunctionArgs, type MetaFunction } from '@remix-run/node'
import { Link, useLoaderData } from '@remix-run/react'
import { ContentsHeading, CourseLayout } from '#app/components/course/course-layout.tsx'
import { GeneralErrorBoundary } from '#app/components/error-boundary.tsx'
import { getCourseOverview } from '#app/modules/courses/catalogue.server.ts'
import { useOptionalUser } from '#app/root.tsx'
import { PRODUCT_NAME } from '#app/utils/brand.ts'
import { formatDuration } from '#app/utils/format.ts'
import { pageLoader } from '#app/utils/pages.server.ts'

export const meta: MetaFunction<typeof loader> = ({ data }) => [
  { title: `${data?.course.title ?? 'Course'} · ${PRODUCT_NAME}` },
  { name: 'description', content: data?.course.description.slice(0, 160) ?? '' },
]

export const loader = (args: LoaderFunctionArgs) => pageLoader(args, loadPage)

async function loadPage({ params }: LoaderFunctionArgs) {
  return json({ course: await getCourseOverview(params.courseId ?? '') })
}

/** The public overview of a course: every video is listed; only free previews open. */
export default function CourseView() {
  const { course } = useLoaderData<typeof loader>()
  const user = useOptionalUser()
  return (
    <main className="mx-auto max-w-7xl px-4 py-8 sm:px-6">
      <CourseLayout
        back={{ label: 'Explore Courses', to: '/explore-courses' }}
        course={{ ...course, imageUrl: course.courseImage?.link ?? null }}
        aside={
          <div className="space-y-3 p-5 text-sm text-slate-600">
            <p>
              This course is part of the training your organisation assigns. Once it is assigned to you, it appears
              under My Courses with your progress.
            </p>
            {user ? (
              <Link to="/courses" className="btn-primary w-full">
                My Courses
              </Link>
            ) : (
              <Link to={`/sign-in?redirectTo=${encodeURIComponent('/courses')}`} className="btn-primary w-full">
                Sign in
              </Link>
            )}
          </div>
        }
      >
        <section className="card" aria-labelledby="contents-heading">
          <div className="flex items-center justify-between border-b border-slate-100 px-4 py-3">
            <ContentsHeading course={course} />
          </div>
          {course.videos.length === 0 ? (
            <p className="p-4 text-sm text-slate-600">No videos in this course yet.</p>
          ) : (
            <ol className="divide-y divide-slate-100">
              {course.videos.map((video, index) => (
                <li key={video._id}>
                  {/* every title is a link: a non-preview one answers "not available for preview" */}
                  <Link
                    to={`/preview/${course._id}/${video._id}`}
                    className="flex items-center gap-3 px-4 py-3 text-sm hover:bg-slate-50"
                  >
                    <span className="w-6 text-right tabular-nums text-slate-500">{index + 1}.</span>
                    <span className="flex-1">{video.title}</span>
                    {video.preview ? (
                      <span className="rounded-full bg-emerald-100 px-2 py-0.5 text-xs font-medium text-emerald-800">
                        Free preview
                      </span>
                    ) : (
                      <span className="sr-only">(not available for preview)</span>
                    )}
                    <span className="tabular-nums text-slate-500">{formatDuration(video.duration)}</span>
                  </Link>
                </li>
              ))}
            </ol>
          )}
        </section>
      </CourseLayout>
    </main>
  )
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary landmark />
}
