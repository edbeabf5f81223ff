import { getFormProps } from '@conform-to/react'
import { parseWithZod } from '@conform-to/zod'
import { json, type ActionFunctionArgs, type LoaderFunctionArgs, type MetaFunction } from '@remix-run/node'
import { Form, Link, useActionData, useLoaderData, useNavigation, useSearchParams } from '@remix-run/react'
import { type ZodTypeAny } from 'zod'
import { CertificateSettingsDialog, CertificatesPanel } from '#app/components/admin/certificate-settings.tsx'
import { DueFields, type DueFieldMeta } from '#app/components/admin/due-fields.tsx'
import { RemindersPanel } from '#app/components/admin/reminder-switch.tsx'
import { CourseImage } from '#app/components/course/course-image.tsx'
import { GeneralErrorBoundary } from '#app/components/error-boundary.tsx'
import { FormTextareaField } from '#app/components/forms/fields.tsx'
import { FormSubmit } from '#app/components/forms/form-submit.tsx'
import { useZodForm } from '#app/components/forms/use-zod-form.ts'
import { Breadcrumb } from '#app/components/ui/breadcrumb.tsx'
import { DetailList } from '#app/components/ui/detail-list.tsx'
import { EmptyState } from '#app/components/ui/empty-state.tsx'
import { FormError } from '#app/components/ui/form-footer.tsx'
import { DeleteButtons, Overlay } from '#app/components/ui/overlay.tsx'
import { AssignLearnersFormSchema } from '#app/modules/assignments/schema.ts'
import { assignProgramToLearners } from '#app/modules/assignments/service.server.ts'
import { can } from '#app/modules/auth/permissions.ts'
import { certificateSettings, editCertificateSettings } from '#app/modules/certificates/settings.server.ts'
import { CertificateSettingsFormSchema, certificatesSavedMessage } from '#app/modules/certificates/settings.ts'
import { invalid } from '#app/modules/errors.ts'
import { uploadRules } from '#app/modules/files/types.server.ts'
import { deleteProgram, getProgram } from '#app/modules/programs/service.server.ts'
import { PRODUCT_NAME } from '#app/utils/brand.ts'
import {
  type FormReply,
  invalidForm,
  pageAction,
  readForm,
  replyOnRefusal,
  submitToService,
  submitUploadForm,
} from '#app/utils/forms.server.ts'
import { pageLoader } from '#app/utils/pages.server.ts'
import { requireAdminSide, requireContentManager, requirePeopleManager } from '#app/utils/session.server.ts'
import { redirectWithSuccess } from '#app/utils/toast.server.ts'

export const meta: MetaFunction<typeof loader> = ({ data }) => [
  { title: `${data?.program.title ?? 'Program'} · ${PRODUCT_NAME}` },
]

export const loader = (args: LoaderFunctionArgs) => pageLoader(args, loadPage)

async function loadPage({ request, params }: LoaderFunctionArgs) {
  const user = await requireAdminSide(request)
  const program = await getProgram(user, params.programId ?? '')
  return json({
    program,
    certificates: await certificateSettings(user, { kind: 'program', id: program._id }),
    canEdit: can(user, 'update:content'),
    canAssign: can(user, 'manage:people'),
    mayIssue: can(user, 'manage:certificates'),
    mayChangeReminders: can(user, 'manage:reminders'),
    signatureUpload: uploadRules('certificateSignature'),
  })
}

/** A refused delete, shown in the delete dialog. */
type DeleteReply = { message: string }

/**
 * The dialogs' forms. Certificate settings (`?intent=certificates`, multipart: it may carry the signature),
 * back to the page with a toast or to the open dialog with its errors; Delete Program: 409 while learners
 * are assigned, unless the admin ticked to unassign them.
 */
export const action = (args: ActionFunctionArgs) => pageAction(args, runAction)

async function runAction({ request, params }: ActionFunctionArgs) {
  const programId = params.programId ?? ''
  const page = `/admin/program/${encodeURIComponent(programId)}`
  if (new URL(request.url).searchParams.get('intent') === 'assign') {
    // assigning is managing people, not content
    const manager = await requirePeopleManager(request, page)
    const submission = parseWithZod(await readForm(request), { schema: AssignLearnersFormSchema })
    if (submission.status !== 'success') return invalidForm(submission)
    const { learners, dueDate } = submission.value
    const done = await submitToService(submission, () =>
      assignProgramToLearners(manager, programId, { learners, dueDate }),
    )
    if (!done.ok) return done.response
    const { assigned, changed, unchanged } = done.value
    const words = [
      assigned ? `Assigned to ${assigned === 1 ? '1 learner' : `${assigned} learners`}.` : '',
      changed ? `Due date changed for ${changed === 1 ? '1 learner' : `${changed} learners`}.` : '',
      unchanged ? `${unchanged === 1 ? '1 learner' : `${unchanged} learners`} had it already.` : '',
    ]
    return redirectWithSuccess(page, words.filter(Boolean).join(' '))
  }
  const user = await requireContentManager(request, page)
  if (new URL(request.url).searchParams.get('intent') === 'certificates') {
    const saved = await submitUploadForm(request, {
      upload: { kind: 'certificateSignature', fileField: 'certificateSignature', actor: user },
      field: 'certificateSignature',
      parse: (formData) => parseWithZod(formData, { schema: CertificateSettingsFormSchema }),
      run: (value) => editCertificateSettings(user, { kind: 'program', id: programId }, value),
    })
    return saved.ok ? redirectWithSuccess(page, certificatesSavedMessage(saved.value)) : saved.response
  }
  const form = await readForm(request)
  const deleted = await replyOnRefusal(
    async () => {
      if (form.get('intent') !== 'delete') throw invalid('Unknown action.')
      // the checkbox posts "on" when ticked; the service's schema reads it as the /api's flag
      return deleteProgram(user, { programId, confirmUnassign: form.get('confirmUnassign') ?? undefined })
    },
    ({ message }): DeleteReply => ({ message }),
  )
  if (!deleted.ok) return deleted.response
  return redirectWithSuccess('/admin/programs', 'Program deleted.')
}

const price = (value: number | null) =>
  value === null ? '—' : new Intl.NumberFormat('en', { minimumFractionDigits: 2 }).format(value)

export default function AdminProgram() {
  const { program, certificates, canEdit, canAssign, mayIssue, mayChangeReminders, signatureUpload } =
    useLoaderData<typeof loader>()
  const [params] = useSearchParams()
  const page = `/admin/program/${program._id}`
  const deleting = canEdit && params.get('delete') !== null
  const editingCertificates = canEdit && params.get('edit') === 'certificates'
  const learners = program.learners.length
  return (
    <>
      <Breadcrumb items={[{ label: 'Programs', to: '/admin/programs' }, { label: program.title }]} />
      <header className="mt-3 flex flex-wrap items-start gap-6">
        <div className="w-48 shrink-0 overflow-hidden rounded-lg">
          <CourseImage src={program.programImage?.link ?? null} title={program.title} priority />
        </div>
        {/* below the image when the two do not fit side by side, so a title word is never squeezed */}
        <div className="min-w-0 flex-1 basis-64">
          <h1 className="break-words text-2xl font-bold">{program.title}</h1>
          <p className="mt-3 max-w-3xl whitespace-pre-line break-words text-slate-700">{program.description}</p>
        </div>
      </header>
      <DetailList
        className="mt-6 grid-cols-2 sm:grid-cols-4"
        items={[
          ['Path', <span className="break-words">{program.path}</span>],
          ['Learning Path', <span className="break-words">{program.learningPath}</span>],
          ['Duration', program.duration],
          ['Price', price(program.price)],
        ]}
      />
      {canEdit ? (
        <div className="mt-6 flex flex-wrap gap-3">
          <Link to={`${page}/edit`} className="btn-primary">
            Edit Program
          </Link>
          {program.courses.length > 1 ? (
            <Link to={`${page}/rearrange`} className="btn-secondary">
              Rearrange Courses
            </Link>
          ) : null}
          <Link to="?delete" preventScrollReset className="btn text-red-700 hover:bg-red-50">
            Delete Program
          </Link>
        </div>
      ) : null}

      <CertificatesPanel
        kind="program"
        subjectId={program._id}
        settings={certificates}
        settingsTo={canEdit ? '?edit=certificates' : undefined}
      />
      <RemindersPanel
        kind="program"
        on={program.reminders ?? true}
        note={
          canEdit && mayChangeReminders
            ? 'Switch them on or off with Edit Program.'
            : 'Only admins switch reminders on or off.'
        }
      />

      <section className="mt-8" aria-labelledby="program-courses">
        <h2 id="program-courses" className="text-lg font-semibold">
          Courses
        </h2>
        {program.courses.length === 0 ? (
          <EmptyState title="No courses" />
        ) : (
          <ol className="card mt-3 divide-y divide-slate-100" aria-label="Courses in order">
            {program.courses.map((course, index) => (
              <li key={course._id} className="flex items-center gap-3 px-4 py-3 text-sm" data-testid="program-course">
                <span className="w-6 text-right tabular-nums text-slate-500">{index + 1}.</span>
                <Link
                  to={`/admin/course/${course._id}`}
                  className="min-w-0 flex-1 break-words text-brand-700 hover:underline"
                >
                  {course.title}
                </Link>
              </li>
            ))}
          </ol>
        )}
      </section>

      <section className="mt-8" aria-labelledby="program-learners">
        <h2 id="program-learners" className="text-lg font-semibold">
          Learners ({learners})
        </h2>
        {learners === 0 ? (
          <EmptyState title="No learners" text="Assign the program below, or from a learner’s page." />
        ) : (
          <ul className="card mt-3 divide-y divide-slate-100">
            {program.learners.map((learner) => (
              <li key={learner._id} className="flex flex-wrap items-center gap-x-3 px-4 py-3 text-sm">
                <Link
                  to={`/admin/user/${learner._id}`}
                  className="break-words font-medium text-brand-700 hover:underline"
                >
                  {learner.firstName} {learner.lastName}
                </Link>
                <span className="break-all text-slate-500">{learner.email}</span>
              </li>
            ))}
          </ul>
        )}
      </section>

      {/* not while a dialog of the page is open: its form is the one at hand */}
      {canAssign && !deleting && !editingCertificates ? <AssignLearnersForm /> : null}

      {editingCertificates ? (
        <CertificateSettingsDialog
          kind="program"
          settings={certificates}
          closeTo={page}
          upload={signatureUpload}
          mayIssue={mayIssue}
        />
      ) : null}
      {deleting ? <DeleteProgramDialog title={program.title} learners={learners} closeTo={page} /> : null}
    </>
  )
}

/** Assign the program to learners named by username or email, all with one optional due date. */
function AssignLearnersForm() {
  const actionData = useActionData<FormReply | DeleteReply>()
  const [params] = useSearchParams()
  const navigation = useNavigation()
  const lastResult =
    params.get('intent') === 'assign' && actionData && 'result' in actionData ? actionData.result : undefined
  const [form, fields] = useZodForm<ZodTypeAny>(AssignLearnersFormSchema, {
    id: 'assign-learners',
    lastResult,
    checkOnSubmit: true,
  })
  return (
    <Form
      method="post"
      action="?intent=assign"
      preventScrollReset
      className="card mt-8 space-y-2 p-6"
      aria-labelledby="assign-learners-heading"
      {...getFormProps(form)}
    >
      <h2 id="assign-learners-heading" className="text-lg font-semibold">
        Assign to learners
      </h2>
      <FormTextareaField
        meta={fields.learners}
        label="Learners (usernames or emails, one a line or separated by commas)"
        rows={3}
      />
      <DueFields dueDate={fields.dueDate as DueFieldMeta} dueTime={fields.dueTime as DueFieldMeta} timeZone={null} />
      <FormSubmit form={form} label="Assign Program" busy={navigation.state === 'submitting'} />
    </Form>
  )
}

function DeleteProgramDialog({ title, learners, closeTo }: { title: string; learners: number; closeTo: string }) {
  const refused = useActionData<DeleteReply>()
  const navigation = useNavigation()
  const busy = navigation.state !== 'idle' && navigation.formMethod === 'POST'
  return (
    <Overlay
      title="Delete program"
      role="alertdialog"
      closeTo={closeTo}
      description={
        <>
          Delete “{title}”? Its image and its course list are deleted; the courses themselves stay. This cannot be
          undone.
          {learners > 0
            ? ` It is assigned to ${learners === 1 ? '1 learner' : `${learners} learners`}, who keep only the courses they have another way.`
            : ''}
        </>
      }
    >
      <Form method="post" action="?delete" preventScrollReset className="space-y-4">
        <input type="hidden" name="intent" value="delete" />
        {learners > 0 ? (
          <label className="flex items-start gap-2 text-sm">
            <input
              type="checkbox"
              name="confirmUnassign"
              className="mt-0.5 h-4 w-4 rounded border-slate-300 text-brand-600 focus:ring-brand-500"
            />
            <span>Unassign {learners === 1 ? 'its learner' : `its ${learners} learners`} and delete the program</span>
          </label>
        ) : null}
        <FormError errors={refused?.message ? [refused.message] : undefined} />
        <div className="flex justify-end gap-3">
          <DeleteButtons closeTo={closeTo} busy={busy} />
        </div>
      </Form>
    </Overlay>
  )
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />
}
