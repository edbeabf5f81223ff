import { getFormProps } from '@conform-to/react'
import { parseWithZod } from '@conform-to/zod'
import { json, type ActionFunctionArgs, type LoaderFunctionArgs, type MetaFunction } from '@remix-run/node'
import { Form, Link, useActionData, useLoaderData, useNavigation, useSearchParams } from '@remix-run/react'
import { type ReactNode } from 'react'
import { type ZodTypeAny } from 'zod'
import { DueFields, type DueFieldMeta as Meta } from '#app/components/admin/due-fields.tsx'
import { ProgressBar } from '#app/components/course/progress-bar.tsx'
import { GeneralErrorBoundary } from '#app/components/error-boundary.tsx'
import { FormField, FormSelectField } from '#app/components/forms/fields.tsx'
import { FormSubmit } from '#app/components/forms/form-submit.tsx'
import { useZodForm } from '#app/components/forms/use-zod-form.ts'
import { DisabledBadge } from '#app/components/people/disabled-badge.tsx'
import { Breadcrumb } from '#app/components/ui/breadcrumb.tsx'
import { DataTable } from '#app/components/ui/data-table.tsx'
import { DetailList } from '#app/components/ui/detail-list.tsx'
import { Overlay, OVERLAY_TITLE_ID } from '#app/components/ui/overlay.tsx'
import { formatUtc } from '#app/components/ui/utc-time.tsx'
import { learnerAssignmentDues, type AssignmentDue } from '#app/modules/assignments/due.server.ts'
import {
  AssignCourseFormSchema,
  AssignmentDueFormSchema,
  AssignProgramFormSchema,
  REMINDER_CHOICE_LABELS,
  REMINDER_CHOICES,
} from '#app/modules/assignments/schema.ts'
import { assignCourse, assignProgram, setAssignmentDue } from '#app/modules/assignments/service.server.ts'
import { can } from '#app/modules/auth/permissions.ts'
import { ROLE, ROLE_NAMES, type RoleId } from '#app/modules/auth/roles.ts'
import { type SessionUser } from '#app/modules/auth/service.server.ts'
import { listCourseTitles } from '#app/modules/courses/catalogue.server.ts'
import { listAssignedCourses } from '#app/modules/courses/learner.server.ts'
import { dayIn, describeDue, describeDueFully, type DueView } from '#app/modules/deadlines/due.ts'
import { describePlan } from '#app/modules/deadlines/plan.ts'
import { listPrograms } from '#app/modules/programs/service.server.ts'
import { disabledDetails, disableUser, enableUser, getProfile, mayDisable } from '#app/modules/users/service.server.ts'
import { PRODUCT_NAME } from '#app/utils/brand.ts'
import { formatCourseDuration, formatDate } from '#app/utils/format.ts'
import { pageAction, invalidForm, readForm, submitToService, type FormReply } from '#app/utils/forms.server.ts'
import { pageLoader } from '#app/utils/pages.server.ts'
import { requireAdminSide, requirePeopleManager } from '#app/utils/session.server.ts'
import { redirectWithSuccess } from '#app/utils/toast.server.ts'

export const meta: MetaFunction<typeof loader> = ({ data }) => [
  { title: `${data ? `${data.profile.firstName} ${data.profile.lastName}` : 'User'} · ${PRODUCT_NAME}` },
]

export const loader = (args: LoaderFunctionArgs) => pageLoader(args, loadPage)

async function loadPage({ request, params }: LoaderFunctionArgs) {
  const user = await requireAdminSide(request)
  const userId = params.userId ?? ''
  const profile = await getProfile(user, userId)
  const learner = profile.role.r_id === ROLE.learner
  const [courses, allCourses, programs] = learner
    ? await Promise.all([
        listAssignedCourses(user, { userId }),
        listCourseTitles(user).then((list) => list.rows),
        listPrograms(user).then((list) => list.rows),
      ])
    : [[], [], []]
  const dues = learner ? await learnerAssignmentDues(user, userId) : null
  const assigned = new Set(profile.assignedCourses)
  return json({
    profile,
    learner,
    courses,
    canEdit: can(user, 'manage:people'),
    // when and by whom the account was disabled; null while it is enabled
    disabled: await disabledDetails(user, userId),
    canDisable: mayDisable(user, { id: profile._id, roleId: profile.role.r_id }),
    unassignedCourses: allCourses.filter((c) => !assigned.has(c._id)),
    programs: programs
      .filter((p) => !profile.assignedPrograms.includes(p._id))
      .map((p) => ({ _id: p._id, title: p.title })),
    // each course assigned directly and each program, with its due date and plan; read at `now`
    dues,
    now: new Date().toISOString(),
  })
}

/**
 * Assign New Course and assign a program, each with an optional due date (assigning twice is harmless);
 * `?intent=due`: change an assignment's due date and reminder plan; a form's `intent` of `disable` or `enable`:
 * disable or enable the account.
 */
export const action = (args: ActionFunctionArgs) => pageAction(args, runAction)

async function runAction({ request, params }: ActionFunctionArgs) {
  const userId = params.userId ?? ''
  const back = `/admin/user/${encodeURIComponent(userId)}`
  const user = await requirePeopleManager(request, back)
  const formData = await readForm(request)
  const access = formData.get('intent')
  if (access === ACCESS_INTENT.disable || access === ACCESS_INTENT.enable)
    return changeAccess(user, userId, access, back)
  const search = new URL(request.url).searchParams
  if (search.get('intent') === 'due') {
    const submission = parseWithZod(formData, { schema: AssignmentDueFormSchema })
    if (submission.status !== 'success') return invalidForm(submission)
    const done = await submitToService(submission, () => setAssignmentDue(user, { userId, ...submission.value }))
    if (!done.ok) return done.response
    return redirectWithSuccess(back, submission.value.dueDate ? 'Due date saved.' : 'Saved, with no due date.')
  }
  // an empty due date is none for a new assignment; one already there keeps its own
  if (search.get('assign') === 'program') {
    const submission = parseWithZod(formData, { schema: AssignProgramFormSchema })
    if (submission.status !== 'success') return invalidForm(submission)
    const { programId, dueDate } = submission.value
    const done = await submitToService(submission, () =>
      assignProgram(user, { userId, programId, dueDate: dueDate ?? undefined }),
    )
    if (!done.ok) return done.response
    return redirectWithSuccess(back, done.value.assigned ? 'Program assigned.' : 'This program was already assigned.')
  }
  const submission = parseWithZod(formData, { schema: AssignCourseFormSchema })
  if (submission.status !== 'success') return invalidForm(submission)
  const { courseId, dueDate } = submission.value
  const done = await submitToService(submission, () =>
    assignCourse(user, { userId, courseId, dueDate: dueDate ?? undefined }),
  )
  if (!done.ok) return done.response
  return redirectWithSuccess(back, done.value.assigned ? 'Course assigned.' : 'This course was already assigned.')
}

/** The account's Disable and Enable forms post `intent` set to one of these. */
const ACCESS_INTENT = { disable: 'disable', enable: 'enable' } as const

/** Disable or enable the account, then back to its page with what came of it as a toast. */
async function changeAccess(user: SessionUser, userId: string, intent: 'disable' | 'enable', back: string) {
  const done = await (intent === 'disable' ? disableUser : enableUser)(user, userId)
  const name = done.userName
  if (!done.changed) return redirectWithSuccess(back, `${name} was already ${intent}d.`)
  return redirectWithSuccess(
    back,
    intent === 'disable'
      ? `${name} is disabled and signed out everywhere.`
      : `${name} is enabled and can sign in again.`,
  )
}

export default function UserDetails() {
  const data = useLoaderData<typeof loader>()
  const { profile, dues } = data
  const [params] = useSearchParams()
  const now = new Date(data.now)
  const details: [string, ReactNode][] = [
    ['First Name', profile.firstName],
    ['Last Name', profile.lastName],
    ['UserName', profile.userName],
    ['Email', profile.email],
    ['Role', ROLE_NAMES[profile.role.r_id as RoleId]],
    ['Member since', formatDate(profile.createdAt)],
    ['Status', data.disabled ? <DisabledBadge /> : 'Active'],
  ]
  const page = `/admin/user/${profile._id}`
  const directDue = new Map((dues?.courses ?? []).map((c) => [c.id, c]))
  const changing = data.canEdit && dues ? changedAssignment(params.get('change'), dues) : null
  return (
    <>
      <Breadcrumb items={[{ label: 'Users', to: '/admin/users' }, { label: profile.userName }]} />
      <h1 className="mt-2 text-2xl font-bold">User Details</h1>
      <section aria-labelledby="profile-heading" className="card mt-6 p-6">
        <h2 id="profile-heading" className="sr-only">
          Profile
        </h2>
        <DetailList items={details} className="sm:grid-cols-3" />
      </section>
      <AccessSection data={data} page={page} />
      {data.learner && dues ? (
        <>
          <section aria-labelledby="courses-heading" className="mt-8">
            <h2 id="courses-heading" className="text-lg font-semibold">
              Assigned courses
            </h2>
            <p className="mt-1 text-sm text-slate-600">Due dates are in the learner’s time zone: {dues.timeZone}.</p>
            <div className="mt-3">
              <DataTable
                label="Assigned courses"
                columns={[
                  { id: 'title', header: 'Course', cell: (c) => c.title },
                  {
                    id: 'duration',
                    header: 'Duration',
                    cell: (c) => formatCourseDuration(c.duration),
                  },
                  {
                    id: 'progress',
                    header: 'Progress',
                    className: 'w-56',
                    cell: (c) => <ProgressBar percent={c.percent} label={`${c.title} progress`} />,
                  },
                  {
                    id: 'due',
                    header: 'Due',
                    className: 'min-w-44',
                    cell: (c) => {
                      const direct = directDue.get(c._id)
                      if (!direct) return <span className="text-slate-500">Through a program</span>
                      return (
                        <DueCell
                          assignment={direct}
                          now={now}
                          changeTo={data.canEdit ? `?change=course:${c._id}` : null}
                        />
                      )
                    },
                  },
                ]}
                rows={data.courses}
                getRowKey={(c) => c._id}
                rowHref={(c) => `/admin/course/${c._id}`}
                total={data.courses.length}
                page={1}
                pageSize={Math.max(data.courses.length, 1)}
                emptyText="No Courses Assigned"
              />
            </div>
          </section>
          <section aria-labelledby="programs-heading" className="mt-8">
            <h2 id="programs-heading" className="text-lg font-semibold">
              Assigned programs
            </h2>
            {dues.programs.length === 0 ? (
              <p className="mt-2 text-sm text-slate-600">No programs assigned.</p>
            ) : (
              <ul className="card mt-3 divide-y divide-slate-100" aria-label="Assigned programs">
                {dues.programs.map((program) => (
                  <li
                    key={program.id}
                    className="flex flex-wrap items-start justify-between gap-x-4 gap-y-1 px-4 py-3 text-sm"
                    data-testid="assigned-program"
                  >
                    <Link
                      to={`/admin/program/${program.id}`}
                      className="min-w-0 break-words font-medium text-brand-700 hover:underline"
                    >
                      {program.title}
                    </Link>
                    <DueCell
                      assignment={program}
                      now={now}
                      changeTo={data.canEdit ? `?change=program:${program.id}` : null}
                    />
                  </li>
                ))}
              </ul>
            )}
          </section>
          {data.canEdit ? <AssignForms data={data} timeZone={dues.timeZone} /> : null}
          {changing ? (
            <ChangeDueDialog
              kind={changing.kind}
              assignment={changing.assignment}
              timeZone={dues.timeZone}
              closeTo={page}
            />
          ) : null}
        </>
      ) : (
        <p className="mt-8 text-sm text-slate-600">
          Courses are assigned to learners; this account is on the admin side.
        </p>
      )}
    </>
  )
}

type PageData = ReturnType<typeof useLoaderData<typeof loader>>

/**
 * Whether the account may sign in: a disabled one says since when and by whom, with Enable; an enabled one has
 * Disable, which asks first (`?disable=1`). Plain forms, so they work without JavaScript.
 */
function AccessSection({ data, page }: { data: PageData; page: string }) {
  const [params] = useSearchParams()
  const busy = useNavigation().state !== 'idle'
  const { profile, disabled, canDisable } = data
  if (disabled)
    return (
      <section aria-labelledby="access-heading" className="card mt-6 border-amber-300 bg-amber-50 p-6">
        <h2 id="access-heading" className="text-lg font-semibold">
          Account disabled
        </h2>
        <p className="mt-1 text-sm text-slate-700">
          Disabled since <time dateTime={disabled.at}>{formatUtc(disabled.at)}</time>
          {disabled.by ? ` by ${disabled.by}` : ''}. {profile.firstName} cannot sign in; their courses, progress and
          records are kept.
        </p>
        {canDisable ? (
          <Form method="post" action={page} className="mt-4">
            <input type="hidden" name="intent" value={ACCESS_INTENT.enable} />
            <button type="submit" className="btn-primary" disabled={busy}>
              Enable account
            </button>
          </Form>
        ) : null}
      </section>
    )
  if (!canDisable) return null
  return (
    <section aria-labelledby="access-heading" className="card mt-6 p-6">
      <h2 id="access-heading" className="text-lg font-semibold">
        Account access
      </h2>
      <p className="mt-1 text-sm text-slate-600">
        Disabling the account signs it out everywhere at once and stops it signing in until it is enabled again. Nothing
        of it is deleted.
      </p>
      <Link
        to="?disable=1"
        preventScrollReset
        className="btn mt-4 bg-red-600 text-white hover:bg-red-700"
        aria-label={`Disable ${profile.userName}`}
      >
        Disable account
      </Link>
      {params.get('disable') ? (
        <Overlay
          title="Disable account"
          role="alertdialog"
          closeTo={page}
          description={`Disable ${profile.firstName} ${profile.lastName} (${profile.userName})? Every session and API token of the account stops working at once, and it cannot sign in until an admin enables it again.`}
        >
          <Form method="post" action={page} className="flex flex-wrap justify-end gap-3">
            <input type="hidden" name="intent" value={ACCESS_INTENT.disable} />
            <a href={page} className="btn-secondary" data-autofocus>
              Cancel
            </a>
            <button type="submit" className="btn bg-red-600 text-white hover:bg-red-700" disabled={busy}>
              {busy ? 'Disabling…' : 'Disable account'}
            </button>
          </Form>
        </Overlay>
      ) : null}
    </section>
  )
}
type Dues = NonNullable<PageData['dues']>

/** `?change=course:<id>` or `?change=program:<id>`: the assignment whose due date is being changed. */
function changedAssignment(value: string | null, dues: Dues) {
  const [kind, id] = (value ?? '').split(':')
  if (kind !== 'course' && kind !== 'program') return null
  const assignment = (kind === 'course' ? dues.courses : dues.programs).find((a) => a.id === id)
  return assignment ? { kind: kind as 'course' | 'program', assignment } : null
}

/** A due date in words ("Due tomorrow", "Overdue by 3 days", "Completed"), in full below, and its Change link. */
function DueCell({ assignment, now, changeTo }: { assignment: AssignmentDue; now: Date; changeTo: string | null }) {
  const { due } = assignment
  return (
    <div className="text-sm">
      {due ? (
        <>
          <p className={assignment.completed || now < new Date(due.dueAt) ? 'font-medium' : 'font-medium text-red-800'}>
            {describeDue(due, now, assignment.completed)}
          </p>
          <p className="text-slate-600">{describeDueFully(due)}</p>
        </>
      ) : (
        <p className="text-slate-500">No due date</p>
      )}
      {assignment.reminderPlan ? (
        <p className="text-slate-600">Reminders: {describePlan(assignment.reminderPlan)}</p>
      ) : null}
      {changeTo ? (
        <Link
          to={changeTo}
          preventScrollReset
          className="text-brand-700 underline"
          aria-label={`Change the due date of ${assignment.title}`}
        >
          Change
        </Link>
      ) : null}
    </div>
  )
}

/** The due date's fields as the form starts: the day, and the time of an exact time, in the learner's zone. */
function dueDefaults(due: DueView | null) {
  if (!due) return { dueDate: '', dueTime: '' }
  if (due.dueDate) return { dueDate: due.dueDate, dueTime: '' }
  const at = new Date(due.dueAt)
  const time = new Intl.DateTimeFormat('en-GB', {
    timeZone: due.timeZone,
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
  }).format(at)
  return { dueDate: dayIn(at, due.timeZone), dueTime: time }
}

const planDefaults = (plan: AssignmentDue['reminderPlan']) => {
  if (!plan) return { reminders: 'portal', remindBefore: '', remindAfter: '' }
  if (plan.before.length === 0 && plan.after.length === 0)
    return { reminders: 'none', remindBefore: '', remindAfter: '' }
  return { reminders: 'custom', remindBefore: plan.before.join(', '), remindAfter: plan.after.join(', ') }
}

/** Change or remove a due date and set the assignment's own reminders: a dialog opened by `?change=`. */
function ChangeDueDialog({
  kind,
  assignment,
  timeZone,
  closeTo,
}: {
  kind: 'course' | 'program'
  assignment: AssignmentDue
  timeZone: string
  closeTo: string
}) {
  const actionData = useActionData<FormReply>()
  const navigation = useNavigation()
  const [form, fields] = useZodForm<ZodTypeAny>(AssignmentDueFormSchema, {
    id: 'change-due',
    lastResult: actionData?.result,
    defaultValue: { kind, id: assignment.id, ...dueDefaults(assignment.due), ...planDefaults(assignment.reminderPlan) },
  })
  return (
    <Overlay
      title={`Due date of ${assignment.title}`}
      closeTo={closeTo}
      description="Leave the day empty for no due date."
    >
      <Form
        method="post"
        action={`?change=${kind}:${assignment.id}&intent=due`}
        preventScrollReset
        className="space-y-3"
        aria-labelledby={OVERLAY_TITLE_ID}
        {...getFormProps(form)}
      >
        <input type="hidden" name="kind" value={kind} />
        <input type="hidden" name="id" value={assignment.id} />
        <DueFields dueDate={fields.dueDate as Meta} dueTime={fields.dueTime as Meta} timeZone={timeZone} />
        <FormSelectField
          meta={fields.reminders}
          label="Reminders"
          options={REMINDER_CHOICES.map((choice) => ({ value: choice, label: REMINDER_CHOICE_LABELS[choice] }))}
        />
        <p className="text-sm text-slate-600">Its own days, when chosen: numbers such as 7, 1.</p>
        <div className="grid gap-x-3 sm:grid-cols-2">
          <FormField meta={fields.remindBefore} label="Days before" inputMode="numeric" />
          <FormField meta={fields.remindAfter} label="Days overdue" inputMode="numeric" />
        </div>
        <div className="flex flex-wrap items-center justify-end gap-3">
          <a href={closeTo} className="btn-secondary">
            Cancel
          </a>
          <FormSubmit form={form} label="Save" busy={navigation.state === 'submitting'} busyLabel="Saving…" />
        </div>
      </Form>
    </Overlay>
  )
}

/** Assign New Course and Assign Program, each posted to the page with `?assign=` naming it. */
function AssignForms({ data, timeZone }: { data: PageData; timeZone: string }) {
  const actionData = useActionData<FormReply>()
  const [params] = useSearchParams()
  const which = params.get('intent') === 'due' ? null : params.get('assign') === 'program' ? 'program' : 'course'
  const lastResult = (kind: keyof typeof ASSIGN) => (which === kind ? actionData?.result : undefined)
  return (
    <div className="mt-8 grid gap-6 md:grid-cols-2">
      <AssignForm
        kind="course"
        choices={data.unassignedCourses}
        lastResult={lastResult('course')}
        timeZone={timeZone}
      />
      <AssignForm kind="program" choices={data.programs} lastResult={lastResult('program')} timeZone={timeZone} />
    </div>
  )
}

const ASSIGN = {
  course: {
    heading: 'Assign New Course',
    label: 'Course',
    placeholder: 'Select a course',
    submit: 'Assign Course',
    field: 'courseId',
    schema: AssignCourseFormSchema,
  },
  program: {
    heading: 'Assign Program',
    label: 'Program',
    placeholder: 'Select a program',
    submit: 'Assign Program',
    field: 'programId',
    schema: AssignProgramFormSchema,
  },
} as const

/** One of the two: a choice of what the learner does not have yet, an optional due date, and its button. */
function AssignForm({
  kind,
  choices,
  lastResult,
  timeZone,
}: {
  kind: keyof typeof ASSIGN
  choices: { _id: string; title: string }[]
  lastResult?: FormReply['result']
  timeZone: string
}) {
  const navigation = useNavigation()
  const { heading, label, placeholder, submit, field, schema } = ASSIGN[kind]
  const [form, fields] = useZodForm<ZodTypeAny>(schema, { id: `assign-${kind}`, lastResult, checkOnSubmit: true })
  return (
    <Form
      method="post"
      action={`?assign=${kind}`}
      className="card space-y-1 p-6"
      aria-labelledby={`${form.id}-heading`}
      {...getFormProps(form)}
    >
      <h2 id={`${form.id}-heading`} className="mb-3 font-semibold">
        {heading}
      </h2>
      <FormSelectField
        meta={fields[field]}
        label={label}
        placeholder={placeholder}
        options={choices.map((c) => ({ value: c._id, label: c.title }))}
      />
      <DueFields dueDate={fields.dueDate as Meta} dueTime={fields.dueTime as Meta} timeZone={timeZone} />
      <FormSubmit form={form} label={submit} busy={navigation.state === 'submitting'} />
    </Form>
  )
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />
}
