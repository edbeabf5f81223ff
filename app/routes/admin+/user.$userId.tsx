import { getFormProps } from '@conform-to/react'
import { parseWithZod } from '@conform-to/zod'
import { json, type ActionFunctionArgs, type LoaderFunctionArgs, type MetaFunction } from '@remix-run/node'
import { Form, useActionData, useLoaderData, useNavigation, useSearchParams } from '@remix-run/react'
import { type ZodTypeAny } from 'zod'
import { ProgressBar } from '#app/components/course/progress-bar.tsx'
import { GeneralErrorBoundary } from '#app/components/error-boundary.tsx'
import { FormSelectField } from '#app/components/forms/fields.tsx'
import { FormSubmit } from '#app/components/forms/form-submit.tsx'
import { useZodForm } from '#app/components/forms/use-zod-form.ts'
import { Breadcrumb } from '#app/components/ui/breadcrumb.tsx'
import { DataTable } from '#app/components/ui/data-table.tsx'
import { DetailList } from '#app/components/ui/detail-list.tsx'
import { AssignCourseSchema, AssignProgramSchema } from '#app/modules/assignments/schema.ts'
import { assignCourse, assignProgram } from '#app/modules/assignments/service.server.ts'
import { can } from '#app/modules/auth/permissions.ts'
import { ROLE, ROLE_NAMES, type RoleId } from '#app/modules/auth/roles.ts'
import { listCourseTitles } from '#app/modules/courses/catalogue.server.ts'
import { listAssignedCourses } from '#app/modules/courses/learner.server.ts'
import { listPrograms } from '#app/modules/programs/service.server.ts'
import { getProfile } from '#app/modules/users/service.server.ts'
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
  const assigned = new Set(profile.assignedCourses)
  return json({
    profile,
    learner,
    courses,
    canEdit: can(user, 'manage:people'),
    unassignedCourses: allCourses.filter((c) => !assigned.has(c._id)),
    programs: programs
      .filter((p) => !profile.assignedPrograms.includes(p._id))
      .map((p) => ({ _id: p._id, title: p.title })),
    assignedPrograms: programs.filter((p) => profile.assignedPrograms.includes(p._id)).map((p) => p.title),
  })
}

/** Assign New Course and assign a program; assigning twice is harmless. */
export const action = (args: ActionFunctionArgs) => pageAction(args, runAction)

async function runAction({ request, params }: ActionFunctionArgs) {
  const userId = params.userId ?? ''
  const back = `/admin/user/${encodeURIComponent(userId)}`
  const user = await requirePeopleManager(request, back)
  const formData = await readForm(request)
  formData.set('userId', userId)
  if (new URL(request.url).searchParams.get('assign') === 'program') {
    const submission = parseWithZod(formData, { schema: AssignProgramSchema })
    if (submission.status !== 'success') return invalidForm(submission)
    const done = await submitToService(submission, () => assignProgram(user, submission.value))
    if (!done.ok) return done.response
    return redirectWithSuccess(back, done.value.assigned ? 'Program assigned.' : 'This program was already assigned.')
  }
  const submission = parseWithZod(formData, { schema: AssignCourseSchema })
  if (submission.status !== 'success') return invalidForm(submission)
  const done = await submitToService(submission, () => assignCourse(user, submission.value))
  if (!done.ok) return done.response
  return redirectWithSuccess(back, done.value.assigned ? 'Course assigned.' : 'This course was already assigned.')
}

export default function UserDetails() {
  const data = useLoaderData<typeof loader>()
  const { profile } = data
  const details: [string, string][] = [
    ['First Name', profile.firstName],
    ['Last Name', profile.lastName],
    ['UserName', profile.userName],
    ['Email', profile.email],
    ['Role', ROLE_NAMES[profile.role.r_id as RoleId]],
    ['Member since', formatDate(profile.createdAt)],
  ]
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
      {data.learner ? (
        <>
          <section aria-labelledby="courses-heading" className="mt-8">
            <h2 id="courses-heading" className="text-lg font-semibold">
              Assigned courses
            </h2>
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
            {data.assignedPrograms.length ? (
              <p className="mt-2 text-sm text-slate-600">Programs: {data.assignedPrograms.join(', ')}</p>
            ) : null}
          </section>
          {data.canEdit ? <AssignForms data={data} /> : null}
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

/** Assign New Course and Assign Program, each posted to the page with `?assign=` naming it. */
function AssignForms({ data }: { data: PageData }) {
  const actionData = useActionData<FormReply>()
  const [params] = useSearchParams()
  const which = params.get('assign') === 'program' ? 'program' : 'course'
  const lastResult = (kind: keyof typeof ASSIGN) => (which === kind ? actionData?.result : undefined)
  return (
    <div className="mt-8 grid gap-6 md:grid-cols-2">
      <AssignForm kind="course" choices={data.unassignedCourses} lastResult={lastResult('course')} />
      <AssignForm kind="program" choices={data.programs} lastResult={lastResult('program')} />
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
    schema: AssignCourseSchema.omit({ userId: true }),
  },
  program: {
    heading: 'Assign Program',
    label: 'Program',
    placeholder: 'Select a program',
    submit: 'Assign Program',
    field: 'programId',
    schema: AssignProgramSchema.omit({ userId: true }),
  },
} as const

/** One of the two: a choice of what the learner does not have yet, and its button. */
function AssignForm({
  kind,
  choices,
  lastResult,
}: {
  kind: keyof typeof ASSIGN
  choices: { _id: string; title: string }[]
  lastResult?: FormReply['result']
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
      <FormSubmit form={form} label={submit} busy={navigation.state === 'submitting'} />
    </Form>
  )
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />
}
