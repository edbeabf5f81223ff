import { getFormProps, getSelectProps, useForm } from '@conform-to/react'
import { parseWithZod } from '@conform-to/zod'
import { json, type ActionFunctionArgs, type LoaderFunctionArgs, type MetaFunction } from '@remix-run/node'
import { Form, useActionData, useLoaderData, useNavigation, useSearchParams } from '@remix-run/react'
import { ProgressBar } from '#app/components/course/progress-bar.tsx'
import { GeneralErrorBoundary } from '#app/components/error-boundary.tsx'
import { Breadcrumb } from '#app/components/ui/breadcrumb.tsx'
import { DataTable } from '#app/components/ui/data-table.tsx'
import { DetailList } from '#app/components/ui/detail-list.tsx'
import { SelectField } from '#app/components/ui/field.tsx'
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

function AssignForms({ data }: { data: ReturnType<typeof useLoaderData<typeof loader>> }) {
  const actionData = useActionData<FormReply>()
  const [params] = useSearchParams()
  const navigation = useNavigation()
  const which = params.get('assign') === 'program' ? 'program' : 'course'
  const [courseForm, courseFields] = useForm({
    id: 'assign-course',
    lastResult: which === 'course' ? actionData?.result : undefined,
    onValidate: ({ formData }) => parseWithZod(formData, { schema: AssignCourseSchema.omit({ userId: true }) }),
  })
  const [programForm, programFields] = useForm({
    id: 'assign-program',
    lastResult: which === 'program' ? actionData?.result : undefined,
    onValidate: ({ formData }) => parseWithZod(formData, { schema: AssignProgramSchema.omit({ userId: true }) }),
  })
  const busy = navigation.state === 'submitting'
  return (
    <div className="mt-8 grid gap-6 md:grid-cols-2">
      <Form method="post" action="?assign=course" className="card space-y-1 p-6" {...getFormProps(courseForm)}>
        <h2 className="mb-3 font-semibold">Assign New Course</h2>
        <SelectField
          label="Course"
          errors={courseFields.courseId.errors}
          placeholder="Select a course"
          options={data.unassignedCourses.map((c) => ({ value: c._id, label: c.title }))}
          selectProps={getSelectProps(courseFields.courseId)}
        />
        <button type="submit" className="btn-primary" disabled={busy}>
          Assign Course
        </button>
      </Form>
      <Form method="post" action="?assign=program" className="card space-y-1 p-6" {...getFormProps(programForm)}>
        <h2 className="mb-3 font-semibold">Assign Program</h2>
        <SelectField
          label="Program"
          errors={programFields.programId.errors}
          placeholder="Select a program"
          options={data.programs.map((p) => ({ value: p._id, label: p.title }))}
          selectProps={getSelectProps(programFields.programId)}
        />
        <button type="submit" className="btn-primary" disabled={busy}>
          Assign Program
        </button>
      </Form>
    </div>
  )
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />
}
