import { json, type LoaderFunctionArgs, type MetaFunction } from '@remix-run/node'
import { Link, useLoaderData } from '@remix-run/react'
import { GeneralErrorBoundary } from '#app/components/error-boundary.tsx'
import { PlanTree } from '#app/components/labs/plan-tree.tsx'
import { Breadcrumb } from '#app/components/ui/breadcrumb.tsx'
import { ColumnHeads } from '#app/components/ui/column-heads.tsx'
import { EmptyState } from '#app/components/ui/empty-state.tsx'
import { ScrollBox } from '#app/components/ui/scroll-box.tsx'
import { UtcTime } from '#app/components/ui/utc-time.tsx'
import { labAttempts, labResults } from '#app/modules/labs/admin.server.ts'
import { PRODUCT_NAME } from '#app/utils/brand.ts'
import { pageLoader } from '#app/utils/pages.server.ts'
import { requireAdminSide } from '#app/utils/session.server.ts'

// A lab's results for admins and coaches (read only): each learner assigned the course, or with an
// attempt at the lab, with the exercises passed, attempts and the last one's time. Opening a learner
// (?learner=<id>, a link, so it works without JavaScript) lists their attempts with each one's SQL.
// The CSV of every attempt is lab.$labId_.export.ts.

export const meta: MetaFunction<typeof loader> = ({ data }) => [
  { title: `${data?.lab.title ?? 'Lab'} results · ${PRODUCT_NAME}` },
]

export const loader = (args: LoaderFunctionArgs) => pageLoader(args, loadPage)

async function loadPage({ request, params }: LoaderFunctionArgs) {
  const user = await requireAdminSide(request)
  const labId = params.labId ?? ''
  const { lab, learners } = await labResults(user, labId)
  const open = learners.find((l) => l.userId === new URL(request.url).searchParams.get('learner'))
  return json({
    lab,
    learners,
    open: open ? { userId: open.userId, attempts: await labAttempts(user, lab.id, open.userId) } : null,
  })
}

const head = 'px-3 py-2 font-semibold'
const cell = 'px-3 py-2 align-top'

export default function LabResults() {
  const { lab, learners, open } = useLoaderData<typeof loader>()
  const openLearner = learners.find((l) => l.userId === open?.userId)
  return (
    <>
      <Breadcrumb
        items={[
          { label: 'Courses', to: '/admin/courses' },
          { label: lab.courseTitle, to: `/admin/course/${lab.courseId}?tab=labs` },
          { label: lab.title },
        ]}
      />
      <div className="mt-3 flex flex-wrap items-start justify-between gap-4">
        <div className="min-w-0">
          <h1 className="break-words text-2xl font-bold">{lab.title}: results</h1>
          <p className="mt-1 text-sm text-slate-500">
            {lab.exercises} {lab.exercises === 1 ? 'exercise' : 'exercises'} · {learners.length}{' '}
            {learners.length === 1 ? 'learner' : 'learners'}
          </p>
        </div>
        <a href={`/admin/lab/${lab.id}/export`} className="btn-secondary" download>
          Export CSV
        </a>
      </div>

      {learners.length === 0 ? (
        <EmptyState title="No learners yet" text="Nobody is assigned this course, and nobody has tried the lab." />
      ) : (
        <ScrollBox label="Results by learner" className="card mt-6">
          <table className="min-w-full divide-y divide-slate-200 text-left text-sm">
            <caption className="sr-only">Results by learner: exercises passed, attempts, last attempt</caption>
            <ColumnHeads names={['Learner', 'Passed', 'Attempts', 'Last attempt', 'Attempts list']} className={head} />
            <tbody className="divide-y divide-slate-100">
              {learners.map((l) => (
                <tr key={l.userId} data-testid="lab-learner">
                  <td className={cell}>
                    <span className="font-medium">{l.name || l.userName}</span>
                    <span className="block break-all text-xs text-slate-500">{l.email}</span>
                    {!l.assigned ? <span className="block text-xs text-amber-700">Not assigned the course</span> : null}
                  </td>
                  <td className={`${cell} tabular-nums`}>
                    {l.passed} of {l.exercises}
                  </td>
                  <td className={`${cell} tabular-nums`}>{l.attempts}</td>
                  <td className={cell}>
                    <UtcTime iso={l.lastAttemptAt} />
                  </td>
                  <td className={cell}>
                    {l.attempts > 0 ? (
                      <Link
                        to={open?.userId === l.userId ? `/admin/lab/${lab.id}` : `?learner=${l.userId}#attempts`}
                        preventScrollReset
                        aria-expanded={open?.userId === l.userId}
                        aria-label={`${open?.userId === l.userId ? 'Hide' : 'Show'} the attempts of ${l.name || l.userName}`}
                        className="text-brand-700 hover:underline"
                      >
                        {open?.userId === l.userId ? 'Hide' : 'Show'}
                      </Link>
                    ) : (
                      '—'
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </ScrollBox>
      )}

      {open && openLearner ? (
        <section id="attempts" aria-labelledby="attempts-heading" className="mt-8">
          <h2 id="attempts-heading" className="text-lg font-semibold">
            Attempts of {openLearner.name || openLearner.userName}
          </h2>
          <ol className="mt-3 space-y-3">
            {open.attempts.map((a) => (
              <li key={a.id} className="card p-4 text-sm" data-testid="lab-attempt">
                <p className="flex flex-wrap items-center gap-x-3 gap-y-1">
                  <span className="font-medium">{a.exerciseTitle}</span>
                  <span className="text-xs text-slate-500">{a.exercise}</span>
                  <span
                    className={`rounded-full px-2 py-0.5 text-xs font-medium ${
                      a.passed ? 'bg-emerald-100 text-emerald-800' : 'bg-red-100 text-red-800'
                    }`}
                  >
                    {a.passed ? 'Passed' : 'Failed'}
                  </span>
                  <span className="text-xs text-slate-600">
                    <UtcTime iso={a.createdAt} /> · {a.durationMs} ms
                  </span>
                </p>
                {a.message ? <p className="mt-1 break-words text-slate-700">{a.message}</p> : null}
                <pre
                  className="mt-2 max-h-64 overflow-auto whitespace-pre-wrap break-words rounded-md bg-slate-50 p-3 font-mono text-xs text-slate-800"
                  aria-label={`SQL of the attempt at ${a.exerciseTitle}`}
                  tabIndex={0}
                >
                  {a.sql}
                </pre>
                {a.plan ? (
                  <div className="mt-3">
                    <PlanTree id={`attempt-${a.id}`} plan={a.plan} level="h3" />
                  </div>
                ) : null}
              </li>
            ))}
          </ol>
        </section>
      ) : null}
    </>
  )
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />
}
