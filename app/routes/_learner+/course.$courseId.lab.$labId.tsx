import { getFormProps, useForm, type SubmissionResult } from '@conform-to/react'
import { json, type ActionFunctionArgs, type LoaderFunctionArgs, type MetaFunction } from '@remix-run/node'
import { Form, useActionData, useLoaderData, useNavigation } from '@remix-run/react'
import { GeneralErrorBoundary } from '#app/components/error-boundary.tsx'
import { Markdown } from '#app/components/labs/markdown.tsx'
import { PlanTree } from '#app/components/labs/plan-tree.tsx'
import { PracticeStatus, RunButton, RunResult } from '#app/components/labs/practice-panel.tsx'
import { SqlField } from '#app/components/labs/sql-editor.tsx'
import { cell, ErrorPlace, RowsTable } from '#app/components/labs/sql-output.tsx'
import { TwoSessions } from '#app/components/labs/two-sessions.tsx'
import { CourseBreadcrumb } from '#app/components/ui/breadcrumb.tsx'
import { FormError } from '#app/components/ui/form-footer.tsx'
import { labPractice } from '#app/modules/labs/practice-assets.server.ts'
import { attemptExercise } from '#app/modules/labs/service.server.ts'
import { PRODUCT_NAME } from '#app/utils/brand.ts'
import { invalidForm, pageAction, readForm, submitToService } from '#app/utils/forms.server.ts'
import { pageLoader } from '#app/utils/pages.server.ts'
import { requireUser } from '#app/utils/session.server.ts'
import { COURSE_REFUSALS } from './__course.server.ts'
import { isSessionsForm, sessionsAction, type SessionsReply } from './__lab-sessions.server.ts'
import { loadLab, parseAttemptForm } from './__lab.server.ts'

// A lab of a course, as its learner works through it: the description, the dataset's tables, and each
// exercise with its state, prompt, opened hints and a form that sends SQL to be graded. The answer is the
// grading beside the form that was sent: passed or not, the learner's rows, what differs, or where the
// database's error points. With JavaScript the SQL is typed in CodeMirror; without, in the textarea under it.

export const meta: MetaFunction<typeof loader> = ({ data }) => [
  { title: `${data?.lab.title ?? 'Lab'} · ${PRODUCT_NAME}` },
]

/** The page starts the practice worker: its policy allows workers of this site and WebAssembly. */
export const handle = { practice: true }

export const loader = (args: LoaderFunctionArgs) => pageLoader(args, loadPage, { redirects: COURSE_REFUSALS })

async function loadPage({ request, params }: LoaderFunctionArgs) {
  const { course, lab } = await loadLab(request, params.courseId ?? '', params.labId ?? '')
  return json({ course, lab, practice: await labPractice(course._id, lab) })
}

type Grading = Awaited<ReturnType<typeof attemptExercise>>
/** The action's answer: the form's state (its values, the errors of a refused one) and, when graded, the grading. */
type LabReply = { result: SubmissionResult<string[]>; grading?: Grading } & Partial<SessionsReply>

export const action = (args: ActionFunctionArgs) => pageAction(args, runAction, { redirects: COURSE_REFUSALS })

async function runAction({ request, params }: ActionFunctionArgs) {
  const user = await requireUser(request)
  const formData = await readForm(request)
  if (isSessionsForm(formData)) return sessionsAction(user, params.labId ?? '', formData)
  const submission = parseAttemptForm(formData)
  if (submission.status !== 'success') return invalidForm(submission)
  const { exercise, sql } = submission.value
  // a statement the exercise refuses (400) is shown at the SQL; anything else (a 429) above the button
  const done = await submitToService(
    submission,
    () => attemptExercise(user, { labId: params.labId ?? '', exercise, sql }),
    { fieldFor: { 400: 'sql' } },
  )
  if (!done.ok) return done.response
  return json<LabReply>({ result: submission.reply(), grading: done.value })
}

type Lab = ReturnType<typeof useLoaderData<typeof loader>>['lab']
type Exercise = Lab['exercises'][number]

export default function LabPage() {
  const { course, lab, practice } = useLoaderData<typeof loader>()
  const reply = useActionData<LabReply>()
  const passed = lab.exercises.filter((e) => e.passed).length
  const sentFor = reply?.result.initialValue?.exercise
  return (
    <div className="grid gap-8 lg:grid-cols-[minmax(0,1fr)_20rem]">
      <div className="min-w-0 space-y-6">
        <CourseBreadcrumb course={course} page={lab.title} />
        <div>
          <p className="text-sm text-slate-600">
            SQL lab · about {lab.minutes} min · {passed} of {lab.exercises.length} exercises passed
          </p>
          <h1 className="text-3xl font-bold">{lab.title}</h1>
        </div>
        <Markdown html={lab.description} />
        <section aria-labelledby="exercises-heading" className="space-y-4">
          <h2 id="exercises-heading" className="text-xl font-semibold">
            Exercises
          </h2>
          {/* none for a lab with nothing to practise (labPractice) */}
          {practice !== undefined ? <PracticeStatus labId={lab.id} setup={practice} /> : null}
          {lab.exercises.length === 0 ? (
            <p className="card p-4 text-sm text-slate-600">This lab has no exercises yet.</p>
          ) : (
            <ol className="space-y-6">
              {lab.exercises.map((exercise, index) => (
                <ExerciseCard
                  key={exercise.key}
                  exercise={exercise}
                  number={index + 1}
                  tables={lab.tables}
                  reply={sentFor === exercise.key ? reply : undefined}
                />
              ))}
            </ol>
          )}
        </section>
      </div>
      <aside className="card h-fit min-w-0 lg:sticky lg:top-4" aria-labelledby="tables-heading">
        <h2 id="tables-heading" className="border-b border-slate-100 px-4 py-3 font-semibold">
          Tables
        </h2>
        {lab.tables.length === 0 ? (
          <p className="p-4 text-sm text-slate-600">This lab’s database has no tables.</p>
        ) : (
          <ul className="divide-y divide-slate-100 text-sm">
            {lab.tables.map((table) => (
              <li key={table.name} className="px-4 py-3 [overflow-wrap:anywhere]">
                <code className="font-semibold text-slate-900">{table.name}</code>
                <ul
                  className="mt-1 flex flex-wrap gap-x-3 gap-y-1 text-slate-600"
                  aria-label={`Columns of ${table.name}`}
                >
                  {table.columns.map((column) => (
                    <li key={column.name}>
                      <code className="text-slate-800">{column.name}</code>{' '}
                      <span className="text-xs text-slate-600">{column.type}</span>
                    </li>
                  ))}
                </ul>
              </li>
            ))}
          </ul>
        )}
      </aside>
    </div>
  )
}

function ExerciseCard({
  exercise,
  number,
  tables,
  reply,
}: {
  exercise: Exercise
  number: number
  tables: Lab['tables']
  reply?: LabReply
}) {
  const navigation = useNavigation()
  const id = `exercise-${exercise.key}`
  const [form, fields] = useForm({ id, lastResult: reply?.result ?? null })
  const grading = reply?.grading
  const sent = typeof reply?.result.initialValue?.sql === 'string' ? reply.result.initialValue.sql : ''
  const grading_ = navigation.state === 'submitting' && navigation.formData?.get('exercise') === exercise.key
  const state = exercise.passed ? 'Passed' : exercise.attempts > 0 ? 'Not passed yet' : 'Not tried'
  const labelId = `${id}-sql-label`
  const sqlError = fields.sql.errors?.[0]
  return (
    <li className="card min-w-0 space-y-4 p-4 sm:p-5" aria-labelledby={`${id}-title`}>
      <div className="flex flex-wrap items-start justify-between gap-2">
        <h3 id={`${id}-title`} className="text-lg font-semibold">
          {number}. {exercise.title}
        </h3>
        <p className="flex flex-wrap items-center gap-2 text-sm">
          <span className="text-slate-600">
            {exercise.points} {exercise.points === 1 ? 'point' : 'points'}
          </span>
          <span
            data-testid="exercise-state"
            className={`rounded-full px-2 py-0.5 text-xs font-medium ${
              exercise.passed
                ? 'bg-emerald-100 text-emerald-800'
                : exercise.attempts > 0
                  ? 'bg-amber-100 text-amber-900'
                  : 'bg-slate-100 text-slate-700'
            }`}
          >
            {state}
            {exercise.attempts > 0 ? ` · ${exercise.attempts} ${exercise.attempts === 1 ? 'attempt' : 'attempts'}` : ''}
          </span>
        </p>
      </div>
      <Markdown html={exercise.prompt} />
      {exercise.hints.length > 0 ? (
        <div className="rounded-md bg-amber-50 p-3 text-sm">
          <h4 className="font-semibold text-amber-900">{exercise.hints.length === 1 ? 'Hint' : 'Hints'}</h4>
          <ol className="mt-1 list-decimal space-y-1 pl-5">
            {exercise.hints.map((hint, i) => (
              <li key={i}>
                <Markdown html={hint} />
              </li>
            ))}
          </ol>
        </div>
      ) : null}
      {exercise.check === 'sessions' ? (
        <TwoSessions exercise={exercise} pair={exercise.sessions} tables={tables} reply={reply} />
      ) : (
        <>
          <Form method="post" preventScrollReset className="space-y-2" {...getFormProps(form)}>
            <input type="hidden" name="exercise" value={exercise.key} />
            <SqlField
              id={fields.sql.id}
              labelId={labelId}
              label={
                <>
                  Your SQL<span className="sr-only"> for {exercise.title}</span>
                </>
              }
              sent={sent}
              error={sqlError}
              tables={tables}
            />
            <FormError id={form.errorId} errors={[...(form.errors ?? []), ...(fields.exercise.errors ?? [])]} />
            <div className="flex flex-wrap gap-2">
              <button type="submit" className="btn-primary" disabled={grading_}>
                {grading_ ? 'Grading…' : 'Submit'}
              </button>
              <RunButton exercise={exercise.key} title={exercise.title} />
            </div>
          </Form>
          <RunResult exercise={exercise.key} id={id} />
          {grading ? <GradingResult id={id} grading={grading} sql={sent} /> : null}
        </>
      )}
    </li>
  )
}

/** How an attempt was graded: passed or not and why, where an error points, the learner's rows and what differs. */
function GradingResult({ id, grading, sql }: { id: string; grading: Grading; sql: string }) {
  return (
    <section aria-labelledby={`${id}-grading`} className="space-y-3 border-t border-slate-100 pt-4">
      <h4 id={`${id}-grading`} className="sr-only">
        Grading
      </h4>
      <p
        role="status"
        className={`rounded-md p-3 text-sm ${grading.passed ? 'bg-emerald-50 text-emerald-900' : 'bg-red-50 text-red-900'}`}
      >
        <strong>{grading.passed ? 'Passed. ' : 'Not passed. '}</strong>
        {grading.message}
      </p>
      {grading.position !== undefined ? (
        <ErrorPlace sql={sql} position={grading.position} label="Where the error is" />
      ) : null}
      {grading.plan ? <PlanTree id={id} plan={grading.plan} /> : null}
      <RowList title="Rows missing from your result" rows={grading.missingRows} />
      <RowList title="Rows your result should not have" rows={grading.extraRows} />
      {grading.columns.length > 0 ? <ResultTable id={id} grading={grading} /> : null}
    </section>
  )
}

/** Rows that differ from the answer, each as its values in a line. */
function RowList({ title, rows }: { title: string; rows: (string | null)[][] }) {
  if (rows.length === 0) return null
  return (
    <div className="text-sm">
      <p className="font-medium text-slate-800">{title}:</p>
      <ul className="mt-1 space-y-1 font-mono text-xs [overflow-wrap:anywhere]">
        {rows.map((row, i) => (
          <li key={i} className="rounded bg-slate-50 px-2 py-1">
            {row.map((value, j) => (
              <span key={j}>
                {j > 0 ? <span className="text-slate-500"> | </span> : null}
                {cell(value)}
              </span>
            ))}
          </li>
        ))}
      </ul>
    </div>
  )
}

/** The learner's own rows, the first ones when there are many, in a box that scrolls on a narrow screen. */
function ResultTable({ id, grading }: { id: string; grading: Grading }) {
  const caption = grading.truncated
    ? `Your result: the first ${grading.rows.length} of ${grading.total} rows`
    : `Your result: ${grading.total} ${grading.total === 1 ? 'row' : 'rows'}`
  return (
    <div className="text-sm">
      <p id={`${id}-result`} className="font-medium text-slate-800">
        {caption}
      </p>
      <RowsTable labelledBy={`${id}-result`} columns={grading.columns} rows={grading.rows} />
    </div>
  )
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />
}
