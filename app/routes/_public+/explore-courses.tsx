import { json, type LoaderFunctionArgs, type MetaFunction } from '@remix-run/node'
import { Form, Link, useLoaderData } from '@remix-run/react'
import { CourseImage } from '#app/components/course/course-image.tsx'
import { GeneralErrorBoundary } from '#app/components/error-boundary.tsx'
import { useAccessLogPing } from '#app/components/learner/use-access-log-ping.ts'
import { can } from '#app/modules/auth/permissions.ts'
import { listPublicCatalogue } from '#app/modules/courses/catalogue.server.ts'
import { useOptionalUser } from '#app/root.tsx'
import { PRODUCT_NAME } from '#app/utils/brand.ts'
import { formatCourseLength } from '#app/utils/format.ts'
import { pageLoader } from '#app/utils/pages.server.ts'

export const meta: MetaFunction = () => [
  { title: `Explore Courses · ${PRODUCT_NAME}` },
  { name: 'description', content: 'Every course on SQL, data modelling, ETL and data warehousing.' },
]

export const loader = (args: LoaderFunctionArgs) => pageLoader(args, loadPage)

async function loadPage({ request }: LoaderFunctionArgs) {
  const q = new URL(request.url).searchParams.get('q')?.slice(0, 100) ?? ''
  return json({ courses: await listPublicCatalogue({ q }), q })
}

export default function ExploreCourses() {
  const { courses, q } = useLoaderData<typeof loader>()
  const user = useOptionalUser()
  const learner = can(user, 'record:progress:own')
  useAccessLogPing({ enabled: learner, pageName: 'Explore Courses' })
  return (
    <main className="mx-auto max-w-7xl px-4 py-8 sm:px-6">
      <div className="flex flex-wrap items-end justify-between gap-4">
        <div>
          <h1 className="text-2xl font-bold">Explore Courses</h1>
          <p className="mt-1 text-slate-600">Every course in the catalogue. Open one to see what it teaches.</p>
        </div>
        {/* a learner has the search box in the top bar on wider screens */}
        <Form method="get" role="search" className={`w-full sm:w-auto ${learner ? 'sm:hidden' : ''}`}>
          <label htmlFor="explore-search" className="sr-only">
            Search courses
          </label>
          <input
            id="explore-search"
            type="search"
            name="q"
            defaultValue={q}
            placeholder="Search courses"
            className="field-input w-full sm:w-64"
          />
        </Form>
      </div>
      {courses.length === 0 ? (
        <div className="card mt-8 p-10 text-center">
          <h2 className="text-lg font-semibold">{q ? `No courses match “${q}”` : 'No courses yet'}</h2>
          {q ? (
            <p className="mt-2">
              <Link to="/explore-courses" className="text-brand-700 hover:underline">
                Show every course
              </Link>
            </p>
          ) : null}
        </div>
      ) : (
        <ul className="mt-6 grid gap-6 sm:grid-cols-2 lg:grid-cols-3" aria-label="Courses">
          {courses.map((course) => (
            <li key={course._id} className="card flex flex-col overflow-hidden" data-testid="explore-card">
              <CourseImage src={course.courseImage?.link ?? null} title={course.title} />
              <div className="flex flex-1 flex-col gap-3 p-5">
                <h2 className="text-lg font-semibold">{course.title}</h2>
                <p className="line-clamp-3 text-sm text-slate-600">{course.description}</p>
                <p className="text-xs text-slate-500">{formatCourseLength(course.videoCount, course.duration)}</p>
                <Link
                  to={`/course-view/${course._id}`}
                  className="btn-primary mt-auto"
                  aria-label={`View Course: ${course.title}`}
                >
                  View Course
                </Link>
              </div>
            </li>
          ))}
        </ul>
      )}
    </main>
  )
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary landmark />
}
