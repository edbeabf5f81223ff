import { json, type LoaderFunctionArgs, type MetaFunction } from '@remix-run/node'
import { Form, Link, useLoaderData } from '@remix-run/react'
import { CourseImage } from '#app/components/course/course-image.tsx'
import { DueWords } from '#app/components/course/due-words.tsx'
import { ProgressBar } from '#app/components/course/progress-bar.tsx'
import { GeneralErrorBoundary } from '#app/components/error-boundary.tsx'
import { useAccessLogPing } from '#app/components/learner/use-access-log-ping.ts'
import { can } from '#app/modules/auth/permissions.ts'
import type { Actor } from '#app/modules/auth/roles.ts'
import { listCertificates } from '#app/modules/certificates/service.server.ts'
import { type CourseCardOrder, listAssignedCourses } from '#app/modules/courses/learner.server.ts'
import { PRODUCT_NAME } from '#app/utils/brand.ts'
import { formatCourseLength } from '#app/utils/format.ts'
import { pageLoader } from '#app/utils/pages.server.ts'
import { requireUser } from '#app/utils/session.server.ts'

export const meta: MetaFunction = () => [{ title: `My Courses · ${PRODUCT_NAME}` }]

export const loader = (args: LoaderFunctionArgs) => pageLoader(args, loadPage)

async function loadPage({ request }: LoaderFunctionArgs) {
  const user = await requireUser(request)
  const params = new URL(request.url).searchParams
  const q = params.get('q')?.slice(0, 100) ?? ''
  // the nearest due date first unless the learner asks for titles
  const order: CourseCardOrder = params.get('sort') === 'title' ? 'title' : 'due'
  const courses = await listAssignedCourses(user, { search: q, order })
  return json({
    courses,
    q,
    order,
    // the moment the due words are read at, the same on the server and in the browser
    now: new Date().toISOString(),
    learner: can(user, 'record:progress:own'),
    certified: await certifiedCourses(user),
  })
}

/** The courses the learner holds a valid certificate for, each with its code (a link to it on My Certificates). */
async function certifiedCourses(user: Actor): Promise<Record<string, string>> {
  if (!can(user, 'read:certificates:own')) return {}
  const held = await listCertificates(user, { userId: user.id, state: 'valid', limit: 1000 })
  return Object.fromEntries(held.filter((c) => c.kind === 'course' && c.subjectId).map((c) => [c.subjectId, c.code]))
}

export default function MyCourses() {
  const { courses, q, order, now, learner, certified } = useLoaderData<typeof loader>()
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
      {courses.length > 1 ? <SortLinks order={order} q={q} /> : null}
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
                <DueWords due={course.due} completed={course.completed} program={course.dueProgram} now={now} />
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

const ORDER_LABELS: Record<CourseCardOrder, string> = { due: 'Due date', title: 'Title' }
const ORDERS = Object.keys(ORDER_LABELS) as CourseCardOrder[]

/** The two orders as links (no JavaScript needed), the search kept; the current one marked. */
function SortLinks({ order, q }: { order: CourseCardOrder; q: string }) {
  const href = (to: CourseCardOrder) => {
    const params = new URLSearchParams()
    if (q) params.set('q', q)
    if (to === 'title') params.set('sort', 'title')
    const search = params.toString()
    return search ? `/courses?${search}` : '/courses'
  }
  return (
    <nav aria-label="Sort courses" className="mt-4 flex flex-wrap items-center gap-2 text-sm">
      <span className="text-slate-600">Sort:</span>
      {ORDERS.map((to) =>
        to === order ? (
          <span key={to} aria-current="page" className="rounded-md bg-brand-50 px-2 py-1 font-semibold text-brand-700">
            {ORDER_LABELS[to]}
          </span>
        ) : (
          <Link key={to} to={href(to)} className="rounded-md px-2 py-1 text-brand-600 hover:underline">
            {ORDER_LABELS[to]}
          </Link>
        ),
      )}
    </nav>
  )
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />
}
