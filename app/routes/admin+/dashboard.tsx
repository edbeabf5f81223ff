import { json, type LoaderFunctionArgs, type MetaFunction } from '@remix-run/node'
import { Link, useLoaderData } from '@remix-run/react'
import { type ReactNode } from 'react'
import { longDay, shortDay, ViewsChart } from '#app/components/dashboard/views-chart.tsx'
import { GeneralErrorBoundary } from '#app/components/error-boundary.tsx'
import { EmptyState } from '#app/components/ui/empty-state.tsx'
import { UtcTime } from '#app/components/ui/utc-time.tsx'
import { overdueAssignmentCount } from '#app/modules/assignments/due.server.ts'
import { backupAlert } from '#app/modules/backups/schedules.server.ts'
import { dashboardCounts } from '#app/modules/courses/admin.server.ts'
import { DASHBOARD_DAYS } from '#app/modules/dashboard/schema.ts'
import { dashboardFigures } from '#app/modules/dashboard/service.server.ts'
import { PRODUCT_NAME } from '#app/utils/brand.ts'
import { pageLoader } from '#app/utils/pages.server.ts'
import { requireAdminSide } from '#app/utils/session.server.ts'

export const meta: MetaFunction = () => [{ title: `Dashboard · ${PRODUCT_NAME}` }]

export const loader = (args: LoaderFunctionArgs) => pageLoader(args, loadPage)

async function loadPage({ request }: LoaderFunctionArgs) {
  const user = await requireAdminSide(request)
  const [counts, figures, backups, overdue] = await Promise.all([
    dashboardCounts(user),
    dashboardFigures(user),
    backupAlert(user),
    overdueAssignmentCount(user),
  ])
  return json({ counts: { ...counts, overdue }, figures, backups })
}

const number = (n: number) => n.toLocaleString('en-US')

export default function Dashboard() {
  const { counts, figures, backups } = useLoaderData<typeof loader>()
  const cards = [
    { label: 'Total Courses', value: counts.courses, to: '/admin/courses' },
    { label: 'Total Users', value: counts.users, to: '/admin/users' },
    { label: 'Total Admins', value: counts.admins, to: '/admin/adminUsers' },
    // courses assigned directly and programs, not completed, whose due time has passed
    { label: 'Overdue assignments', value: counts.overdue, to: '/admin/users?due=overdue' },
  ]
  const active = [
    { label: 'Active learners, last 7 days', value: figures.activeLearners.last7Days },
    { label: 'Active learners, last 30 days', value: figures.activeLearners.last30Days },
  ]
  const totalViews = figures.viewsPerDay.reduce((sum, d) => sum + d.views, 0)
  return (
    <>
      <h1 className="text-2xl font-bold">Dashboard</h1>
      {backups ? (
        <p
          className="mt-4 rounded-md border border-red-200 bg-red-50 px-4 py-3 text-sm text-red-900"
          data-testid="backup-alert"
        >
          The backup <strong>{backups.scheduleName}</strong> failed at <UtcTime iso={backups.failedAt} />
          {backups.error ? `: ${backups.error}` : '.'}
          {backups.others ? ` The latest backup of ${backups.others} more schedule(s) failed too.` : ''}{' '}
          <Link to="/admin/backups" className="font-medium underline">
            See Backups
          </Link>
        </p>
      ) : null}
      <ul className="mt-6 grid gap-6 sm:grid-cols-2 lg:grid-cols-4">
        {cards.map((card) => (
          <li key={card.label}>
            <Link
              to={card.to}
              className="card block p-6 transition hover:border-brand-500 hover:shadow-md"
              data-testid="count-card"
            >
              <p className="text-sm font-medium text-slate-500">{card.label}</p>
              <p className="mt-2 text-4xl font-bold tabular-nums text-brand-900">{card.value}</p>
            </Link>
          </li>
        ))}
      </ul>

      <h2 className="mt-10 text-xl font-semibold">Viewing</h2>
      <p className="mt-1 text-sm text-slate-600">
        Days are UTC days, up to and including today, {longDay(figures.today)}. A learner is active on a day they
        watched a video or opened a page.
      </p>
      <ul className="mt-4 grid gap-6 sm:grid-cols-2">
        {active.map((card) => (
          <li key={card.label} className="card p-6" data-testid="active-card">
            <p className="text-sm font-medium text-slate-500">{card.label}</p>
            <p className="mt-2 text-4xl font-bold tabular-nums text-brand-900">{number(card.value)}</p>
          </li>
        ))}
      </ul>

      <Section title={`Video views per day, last ${DASHBOARD_DAYS} days`} id="views-per-day">
        {totalViews === 0 ? (
          <EmptyState
            title="No video views yet"
            text={`Views appear here once learners watch videos; the chart covers the last ${DASHBOARD_DAYS} days.`}
          />
        ) : (
          <>
            <div className="px-2 pt-4 sm:px-4">
              <ViewsChart days={figures.viewsPerDay} />
            </div>
            <details className="border-t border-slate-200 px-4 py-3 text-sm">
              <summary className="cursor-pointer font-medium text-brand-700">Show as table</summary>
              <div className="mt-3">
                <table className="w-full text-left">
                  <caption className="sr-only">Video views per day, last {DASHBOARD_DAYS} days</caption>
                  <FiguresHead columns={{ Day: 'py-1 pr-4', Views: 'py-1 text-right' }} />
                  <tbody>
                    {figures.viewsPerDay.map((d) => (
                      <tr key={d.day} className="border-b border-slate-100">
                        <th scope="row" className="py-1 pr-4 font-normal">
                          <time dateTime={d.day}>{shortDay(d.day)}</time>
                        </th>
                        <td className="py-1 text-right tabular-nums">{number(d.views)}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
            </details>
          </>
        )}
      </Section>

      <div className="grid gap-6 xl:grid-cols-2">
        <Section title="Completion per course" id="completion">
          <p className="px-4 pt-3 text-sm text-slate-600">
            Of the learners who have the course, assigned directly or through a program (each counted once), those who
            completed every visible video and passed every exercise of every visible lab of it.
          </p>
          {figures.completion.length === 0 ? (
            <EmptyState title="No courses yet" />
          ) : (
            <ul className="divide-y divide-slate-100 px-4 pb-2" data-testid="completion">
              {figures.completion.map((c) => (
                <li key={c.courseId} className="py-3">
                  <div className="flex flex-wrap items-baseline justify-between gap-x-4">
                    <Link to={`/admin/course/${c.courseId}`} className="font-medium text-brand-700 hover:underline">
                      {c.title}
                    </Link>
                    <span className="text-sm tabular-nums text-slate-700">
                      {c.percent === null ? (
                        c.videos + c.labs === 0 ? (
                          'No visible videos or labs'
                        ) : (
                          'No learners assigned'
                        )
                      ) : (
                        <>
                          <strong className="font-semibold">{c.percent}%</strong> · {number(c.completed)} of{' '}
                          {number(c.assigned)}
                        </>
                      )}
                    </span>
                  </div>
                  {c.percent === null ? null : (
                    <div className="mt-2 h-2 rounded-full bg-slate-100" aria-hidden="true">
                      <div className="h-2 rounded-full bg-brand-500" style={{ width: `${c.percent}%` }} />
                    </div>
                  )}
                </li>
              ))}
            </ul>
          )}
        </Section>

        <Section title={`Most-watched videos, last ${DASHBOARD_DAYS} days`} id="top-videos">
          {figures.topVideos.length === 0 ? (
            <EmptyState title="No video views yet" />
          ) : (
            <ol className="divide-y divide-slate-100 px-4 pb-2" data-testid="top-videos">
              {figures.topVideos.map((v, index) => (
                <li key={v.videoId} className="flex items-baseline gap-3 py-3">
                  <span className="w-5 shrink-0 text-sm font-semibold text-slate-400" aria-hidden="true">
                    {index + 1}
                  </span>
                  <div className="min-w-0 flex-1">
                    <p className="break-words font-medium">{v.title || 'Untitled video'}</p>
                    <p className="break-words text-sm text-slate-600">{v.courseTitle}</p>
                  </div>
                  <span className="shrink-0 text-sm tabular-nums text-slate-700">
                    {number(v.views)} {v.views === 1 ? 'view' : 'views'}
                  </span>
                </li>
              ))}
            </ol>
          )}
        </Section>
      </div>

      <Section title="Lab pass rates" id="lab-pass-rates">
        <p className="px-4 pt-3 text-sm text-slate-600">
          Per visible lab, of the learners who have its course: those who made an attempt at it, and those who passed
          every one of its exercises.
        </p>
        {figures.labPassRates.length === 0 ? (
          <EmptyState
            title="No labs yet"
            text="A course’s visible SQL labs appear here, with how many of its learners tried and passed them."
          />
        ) : (
          <div className="overflow-x-auto px-4 pb-2">
            <table className="w-full text-left text-sm" data-testid="lab-pass-rates">
              <caption className="sr-only">
                Lab pass rates: learners who have the course, tried the lab, completed it
              </caption>
              <FiguresHead
                columns={{
                  Lab: 'py-2 pr-2',
                  Learners: 'px-1.5 py-2 text-right',
                  Tried: 'px-1.5 py-2 text-right',
                  Completed: 'py-2 pl-1.5 text-right',
                }}
              />
              <tbody>
                {figures.labPassRates.map((lab) => (
                  <tr key={lab.labId} className="border-b border-slate-100 align-top last:border-0">
                    <th scope="row" className="py-2 pr-2 text-left font-normal [overflow-wrap:anywhere]">
                      <Link to={`/admin/lab/${lab.labId}`} className="block font-medium text-brand-700 hover:underline">
                        {lab.title}
                      </Link>
                      <span className="block text-slate-600">{lab.courseTitle}</span>
                    </th>
                    <td className="px-1.5 py-2 text-right tabular-nums">{number(lab.assigned)}</td>
                    <td className="px-1.5 py-2 text-right tabular-nums">{number(lab.tried)}</td>
                    <td className="py-2 pl-1.5 text-right tabular-nums">
                      {number(lab.completed)}
                      {lab.percent === null ? null : (
                        <>
                          {' '}
                          <strong className="block font-semibold">{lab.percent}%</strong>
                        </>
                      )}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </Section>
    </>
  )
}

/** The head row of a table of figures: each column's name, with its padding and alignment. */
function FiguresHead({ columns }: { columns: Record<string, string> }) {
  return (
    <thead>
      <tr className="border-b border-slate-200 text-slate-500">
        {Object.entries(columns).map(([name, place]) => (
          <th key={name} scope="col" className={`${place} font-medium`}>
            {name}
          </th>
        ))}
      </tr>
    </thead>
  )
}

function Section({ title, id, children }: { title: string; id: string; children: ReactNode }) {
  return (
    <section className="card mt-6 min-w-0 overflow-hidden" aria-labelledby={id}>
      <h3 id={id} className="border-b border-slate-200 px-4 py-3 font-semibold">
        {title}
      </h3>
      {children}
    </section>
  )
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />
}
