import { redirect, type LoaderFunctionArgs } from '@remix-run/node'
import { Link } from '@remix-run/react'
import { GeneralErrorBoundary } from '#app/components/error-boundary.tsx'
import { landingPath } from '#app/modules/auth/permissions.ts'
import { PRODUCT_NAME } from '#app/utils/brand.ts'
import { pageLoader } from '#app/utils/pages.server.ts'
import { getSessionUser } from '#app/utils/session.server.ts'

// A signed-in user goes to their area: the admin dashboard for r_id 1, 3, 4, My Courses otherwise.
export const loader = (args: LoaderFunctionArgs) => pageLoader(args, loadPage)

async function loadPage({ request }: LoaderFunctionArgs) {
  const user = await getSessionUser(request)
  if (user) throw redirect(landingPath(user.roleId))
  return null
}

export default function Landing() {
  return (
    <>
      <main>
        <section className="bg-gradient-to-br from-brand-900 via-brand-700 to-brand-500 text-white">
          <div className="mx-auto max-w-6xl px-6 py-20">
            <h1 className="max-w-3xl text-4xl font-bold leading-tight sm:text-5xl">
              Learn the databases and data warehouses that businesses run on.
            </h1>
            <p className="mt-6 max-w-2xl text-lg text-brand-100">
              {PRODUCT_NAME} teaches SQL, data modelling, ETL and data warehousing through short videos, real documents
              and hands-on scenarios — and shows you honestly how much you have really watched.
            </p>
            <div className="mt-8 flex flex-wrap gap-3">
              <Link to="/sign-in" className="btn bg-white text-brand-700 hover:bg-brand-50">
                Sign in to your courses
              </Link>
              <Link to="/explore-courses" className="btn border border-white/60 text-white hover:bg-white/10">
                Explore the catalogue
              </Link>
            </div>
          </div>
        </section>
        <section className="mx-auto grid max-w-6xl gap-8 px-6 py-16 md:grid-cols-3">
          <article>
            <h2 className="text-xl font-semibold">Why {PRODUCT_NAME}</h2>
            <p className="mt-3 text-slate-600">
              Every course is built by practitioners around the work itself: writing queries, designing star schemas,
              building pipelines. Prerequisites unlock lessons in the right order, so nobody is lost halfway.
            </p>
          </article>
          <article>
            <h2 className="text-xl font-semibold">Why learn online</h2>
            <p className="mt-3 text-slate-600">
              Data skills change faster than classroom schedules. Learning online lets employees, career changers and
              job seekers study at their own pace, return to a lesson when a project needs it, and prove what they have
              finished.
            </p>
          </article>
          <article>
            <h2 className="text-xl font-semibold">Progress you can trust</h2>
            <p className="mt-3 text-slate-600">
              Progress counts the seconds you actually played, once each. Skipping ahead does not finish a video, so a
              completed course means the learning really happened, and its certificate says so: an employer can{' '}
              <Link to="/verify" className="font-medium text-brand-700 underline hover:text-brand-900">
                check a certificate
              </Link>{' '}
              by its code.
            </p>
          </article>
        </section>
        <section className="bg-white">
          <figure className="mx-auto max-w-3xl px-6 py-16 text-center">
            <blockquote className="text-xl italic text-slate-700">
              “I moved from reporting to data engineering in six months. The warehouse scenarios were exactly the
              problems my new team handed me in week one.”
            </blockquote>
            <figcaption className="mt-4 text-sm font-medium text-slate-500">
              Priya N., data engineer, formerly a reporting analyst
            </figcaption>
          </figure>
        </section>
      </main>
    </>
  )
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary landmark />
}
