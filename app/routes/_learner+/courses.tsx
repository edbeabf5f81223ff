import { json, type LoaderFunctionArgs, type MetaFunction } from '@remix-run/node'
import { Form, Link, useLoaderData } from '@remix-run/react'
import { CourseImage } from '#app/components/course/course-image.tsx'
import { ProgressBar } from '#app/components/course/progress-bar.tsx'
import { GeneralErrorBoundary } from '#app/components/error-boundary.tsx'
import { useAccessLogPing } from '#app/components/learner/use-access-log-ping.ts'
import { can } from '#app/modules/auth/permissions.ts'
import type { Actor } from '#app/modules/auth/roles.ts'
import { listCertificates } from '#app/modules/certificates/service.server.ts'
import { listAssignedCourses } from '#app/modules/courses/learner.server.ts'
import { PRODUCT_NAME } from '#app/utils/brand.ts'
import { formatCourseLength } from '#app/utils/format.ts'
import { pageLoader } from '#app/utils/pages.server.ts'
import { requireUser } from '#app/utils/session.server.ts'

export const meta: MetaFunction = () => [{ title: `My Courses · ${PRODUCT_NAME}` }]

export const loader = (args: LoaderFunctionArgs) => pageLoader(args, loadPage)

async function loadPage({ request }: LoaderFunctionArgs) {
  const user = await requireUser(request)
  const q = new URL(request.url).searchParams.get('q')?.slice(0, 100) ?? ''
  const courses = await listAssignedCourses(user, { search: q })
  return json({ courses, q, learner: can(user, 'record:progress:own'), certified: await certifiedCourses(user) })
}

/** The courses the learner holds a valid certificate for, each with its code (a link to it on My Certificates). */
async function certifiedCourses(user: Actor): Promise<Record<string, string>> {
  if (!can(user, 'read:certificates:own')) return {}
  const held = await listCertificates(user, { userId: user.id, state: 'valid', limit: 1000 })
  return Object.fromEntries(held.filter((c) => c.kind === 'course' && c.subjectId).map((c) => [c.subjectId, c.code]))
}

export default function MyCourses() {
  const { courses, q, learner, certified } = useLoaderData<typeof loader>()
  useAccessLogPing({ enabled: learner, pageName: 'My Courses' })
  return (
    <>
      <div className="flex flex-wrap items-end justify-between gap-4">
        <h1 className="text-2xl font-bold">My Courses</h1>
        {/* the header search is hidden on small screens; this one serves them */}
        <Form method="get" role="search" className="w-full sm:hidden">
          <label htmlFor="my-courses-search" className="sr-only">
            Search courses
          </label>
          <input
            id="my-courses-search"
            type="search"
            name="q"
            defaultValue={q}
            placeholder="Search courses"
            className="field-input w-full"
          />
        </Form>
      </div>
      {courses.length === 0 ? (
        <div className="card mt-8 p-10 text-center">
          <h2 className="text-lg font-semibold">{q ? `No courses match “${q}”` : 'No Courses Assigned'}</h2>
          <p className="mt-2 text-slate-600">
            {q ? (
              <Link to="/courses" className="text-brand-600 hover:underline">
                Show all my courses
              </Link>
            ) : (
              'When your administrator assigns you a course or a program, it appears here.'
            )}
          </p>
        </div>
      ) : (
        <ul className="mt-6 grid gap-6 sm:grid-cols-2 lg:grid-cols-3" aria-label="Assigned courses">
          {courses.map((course, index) => (
            <li key={course._id} className="card flex flex-col overflow-hidden" data-testid="course-card">
              <Link to={`/course/${course._id}`} tabIndex={-1} aria-hidden>
                {/* the first card's picture is the page's largest paint on a phone (one card a row) */}
                <CourseImage src={course.courseImage?.link ?? null} title={course.title} priority={index === 0} />
              </Link>
              <div className="flex flex-1 flex-col gap-3 p-5">
                <h2 className="text-lg font-semibold">
                  <Link to={`/course/${course._id}`} className="hover:text-brand-700">
                    {course.title}
                  </Link>
                </h2>
                <p className="line-clamp-2 text-sm text-slate-600">{course.description}</p>
                <p className="text-xs text-slate-500">{formatCourseLength(course.videoCount, course.duration)}</p>
                <div className="mt-auto space-y-3">
                  <ProgressBar percent={course.percent} label={`${course.title} progress`} />
                  <Link to={`/course/${course._id}`} className="btn-primary w-full">
                    Start Course
                  </Link>
                  {certified[course._id] ? (
                    <Link to={`/certificates#certificate-${certified[course._id]}`} className="btn-secondary w-full">
                      View certificate<span className="sr-only"> for {course.title}</span>
                    </Link>
                  ) : null}
                </div>
              </div>
            </li>
          ))}
        </ul>
      )}
    </>
  )
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />
}
