import { getFormProps } from '@conform-to/react'
import { parseWithZod } from '@conform-to/zod'
import { json, type ActionFunctionArgs, type LoaderFunctionArgs, type MetaFunction } from '@remix-run/node'
import { Form, Link, useActionData, useLoaderData, useLocation, useNavigation } from '@remix-run/react'
import { GeneralErrorBoundary } from '#app/components/error-boundary.tsx'
import { FormTextareaField } from '#app/components/forms/fields.tsx'
import { useZodForm } from '#app/components/forms/use-zod-form.ts'
import { DataTable } from '#app/components/ui/data-table.tsx'
import { FormError } from '#app/components/ui/form-footer.tsx'
import { Overlay, OVERLAY_TITLE_ID } from '#app/components/ui/overlay.tsx'
import { parseTableQuery, tableHref } from '#app/components/ui/table-query.ts'
import { can, requirePermission } from '#app/modules/auth/permissions.ts'
import { hoursText } from '#app/modules/certificates/facts.ts'
import { CertificateFilterSchema, RevokeSchema } from '#app/modules/certificates/schema.ts'
import {
  certificateSubjects,
  reissueCertificate,
  revokeCertificate,
  staffCertificate,
  staffCertificates,
  type StaffCertificateView,
} from '#app/modules/certificates/service.server.ts'
import { invalid } from '#app/modules/errors.ts'
import { PRODUCT_NAME } from '#app/utils/brand.ts'
import { formatLongDate } from '#app/utils/format.ts'
import { invalidForm, pageAction, readForm, type FormReply } from '#app/utils/forms.server.ts'
import { pageLoader } from '#app/utils/pages.server.ts'
import { fieldErrors } from '#app/utils/refusals.server.ts'
import { requireAdminSide } from '#app/utils/session.server.ts'
import { redirectWithSuccess } from '#app/utils/toast.server.ts'

// Every certificate given, for the admin side: searched by the learner's name or email or by a code pasted in
// any grouping, filtered by course, program (`?course=<id>`, `?program=<id>`: other pages link here with them)
// and state, paged, and exported as CSV. Admins revoke (with a reason) and re-issue, each after a dialog whose
// state is in the URL (`?revoke=<code>`, `?reissue=<code>`), so it works without JavaScript as a card in the
// page; coaches read the page without those buttons.

export const meta: MetaFunction = () => [{ title: `Certificates · ${PRODUCT_NAME}` }]

const PAGE = '/admin/certificates'
/** The query parameters of the dialogs: left out of where a dialog's Cancel and its action go back to. */
const DIALOG_PARAMS = ['revoke', 'reissue'] as const

// a dialog asking about a code that names no certificate goes back to the list, with a toast that says so
export const loader = (args: LoaderFunctionArgs) =>
  pageLoader(args, loadPage, { redirects: [{ when: 404, to: ({ request }) => listPath(request) }] })

async function loadPage({ request }: LoaderFunctionArgs) {
  const user = await requireAdminSide(request)
  const url = new URL(request.url)
  // one order, newest first; only the paging and the search of the query are used
  const query = parseTableQuery(url, { sortKeys: ['issued'] as const, defaultSort: 'issued', defaultDir: 'desc' })
  const input = {
    course: url.searchParams.get('course') ?? '',
    program: url.searchParams.get('program') ?? '',
    state: url.searchParams.get('state') ?? '',
  }
  const filter = {
    q: query.q || undefined,
    courseId: input.course || undefined,
    programId: input.program || undefined,
    state: input.state || undefined,
  }
  const subjects = await certificateSubjects(user)
  const canManage = can(user, 'manage:certificates')
  const dialog = canManage ? await askedAbout(user, url) : null
  // a wrong filter is shown beside its fields, with an empty list; the service checks it again
  const checked = CertificateFilterSchema.safeParse(filter)
  if (!checked.success) {
    const rows: StaffCertificateView[] = []
    return json({ rows, total: 0, query, input, subjects, canManage, dialog, errors: fieldErrors(checked.error) })
  }
  const { rows, total } = await staffCertificates(user, filter, { offset: query.offset, limit: query.size })
  return json({ rows, total, query, input, subjects, canManage, dialog, errors: null })
}

/** The certificate a Revoke or Re-issue dialog in the URL asks about (a code that names none is refused: 404). */
async function askedAbout(user: Parameters<typeof staffCertificate>[0], url: URL) {
  const kind = DIALOG_PARAMS.find((name) => url.searchParams.has(name))
  if (!kind) return null
  return { kind, certificate: await staffCertificate(user, url.searchParams.get(kind) ?? '') }
}

/** The list as it was (its search, filter and page) without a dialog open. */
function listPath(request: Request) {
  const url = new URL(request.url)
  for (const name of DIALOG_PARAMS) url.searchParams.delete(name)
  return `${url.pathname}${url.search}`
}

// a refusal the form does not show (a coach, a certificate revoked already or gone) goes back to the list
// with a toast
export const action = (args: ActionFunctionArgs) =>
  pageAction(args, runAction, { redirects: [{ to: ({ request }) => listPath(request) }] })

async function runAction({ request }: ActionFunctionArgs) {
  const user = await requireAdminSide(request)
  const form = await readForm(request)
  const code = String(form.get('code') ?? '')
  const intent = form.get('intent')
  if (intent === 'reissue') {
    const given = await reissueCertificate(user, code)
    return redirectWithSuccess(
      listPath(request),
      `Re-issued as ${given.code}, stating ${given.learnerName}; the old certificate is revoked.`,
    )
  }
  if (intent !== 'revoke') throw invalid('Choose Revoke or Re-issue.')
  const submission = parseWithZod(form, { schema: RevokeSchema })
  if (submission.status !== 'success') {
    // someone who may not revoke is told so, not what the form lacks
    requirePermission(user, 'manage:certificates')
    return invalidForm(submission)
  }
  const revoked = await revokeCertificate(user, code, submission.value)
  return redirectWithSuccess(listPath(request), `Certificate ${revoked.code} of ${revoked.learnerName} revoked.`)
}

type Subject = { id: string; title: string; certificates: boolean; issued: number }

export default function Certificates() {
  const { rows, total, query, input, subjects, canManage, dialog, errors } = useLoaderData<typeof loader>()
  // React leaves a choice made in a select as it is when only its default changes, so the filter form is made
  // afresh on each navigation: after Clear filter (or Back) it shows the URL's filter, as the table does
  const { key: visit, pathname, search } = useLocation()
  const params = new URLSearchParams(search)
  const closeTo = tableHref(pathname, params, { revoke: null, reissue: null })
  const filtered = Boolean(query.q || input.course || input.program || input.state)
  return (
    <>
      <h1 className="text-2xl font-bold">Certificates</h1>
      <p className="mt-2 max-w-3xl text-sm text-slate-600">
        Every certificate given, newest first. Search by the learner’s name or email, or paste a certificate’s code as
        it is printed.{' '}
        {canManage
          ? 'Revoke one given in error (the verify page then says it is revoked, never why), or re-issue one after the learner’s name changed: the new certificate states the name as it is now, and the old one is revoked.'
          : 'Only admins can revoke or re-issue a certificate.'}
      </p>

      <Form
        key={visit}
        method="get"
        className="card mt-6 grid gap-x-4 gap-y-1 p-6 md:grid-cols-[2fr_2fr_1fr_auto] md:items-end"
        aria-label="Filter certificates"
      >
        {/* a new filter starts again at page 1, with the search and the rows per page kept */}
        {query.q ? <input type="hidden" name="q" value={query.q} /> : null}
        <input type="hidden" name="size" value={query.size} />
        <SubjectSelect
          name="course"
          label="Course"
          all="All courses"
          subjects={subjects.courses}
          value={input.course}
          error={errors?.courseId}
        />
        <SubjectSelect
          name="program"
          label="Program"
          all="All programs"
          subjects={subjects.programs}
          value={input.program}
          error={errors?.programId}
        />
        <div>
          <label htmlFor="certificates-state" className="field-label">
            State
          </label>
          <select
            id="certificates-state"
            name="state"
            defaultValue={input.state}
            className="field-input"
            aria-invalid={errors?.state ? true : undefined}
            aria-describedby={errors?.state ? 'certificates-state-error' : undefined}
          >
            <option value="">Any</option>
            <option value="valid">Valid</option>
            <option value="revoked">Revoked</option>
          </select>
          <p id="certificates-state-error" className="field-error">
            {errors?.state}
          </p>
        </div>
        <div className="flex flex-wrap gap-2 pb-6">
          <button type="submit" className="btn-primary">
            Filter
          </button>
          <Link to={PAGE} className="btn-secondary whitespace-nowrap">
            Clear filter
          </Link>
        </div>
      </Form>

      {errors ? null : (
        <p className="mt-6">
          {/* a plain link: the download is a whole file, not a page Remix could load */}
          <a href={exportHref(query.q, input)} className="btn-secondary" download>
            Export CSV<span className="sr-only"> of all {total} certificates of this filter</span>
          </a>
        </p>
      )}

      <div className="mt-6">
        <DataTable
          label="Certificates"
          columns={[
            {
              id: 'code',
              header: 'Code',
              cell: (c) => (
                <Link
                  to={`/verify/${c.code}`}
                  className="whitespace-nowrap font-mono text-brand-700 hover:underline"
                  aria-label={`${c.code}, its verify page`}
                >
                  {c.code}
                </Link>
              ),
            },
            { id: 'learner', header: 'Learner', className: 'min-w-48', cell: (c) => <Learner certificate={c} /> },
            { id: 'title', header: 'Course or program', className: 'min-w-48', cell: (c) => <Title certificate={c} /> },
            { id: 'kind', header: 'Kind', cell: (c) => (c.kind === 'course' ? 'Course' : 'Program') },
            {
              id: 'issued',
              header: 'Issued',
              className: 'whitespace-nowrap',
              cell: (c) => <time dateTime={c.issuedAt}>{formatLongDate(c.issuedAt)}</time>,
            },
            { id: 'hours', header: 'Hours', className: 'whitespace-nowrap', cell: (c) => hoursText(c.minutes) },
            { id: 'state', header: 'State', className: 'min-w-44', cell: (c) => <State certificate={c} /> },
            ...(canManage
              ? [{ id: 'actions', header: 'Actions', cell: (c: StaffCertificateView) => <Actions certificate={c} /> }]
              : []),
          ]}
          rows={rows}
          getRowKey={(c) => c.id}
          total={total}
          page={query.page}
          pageSize={query.size}
          search={{
            value: query.q,
            label: 'Search certificates',
            placeholder: 'Name, email or code',
          }}
          {...emptyState({ filtered, hasErrors: Boolean(errors), input, subjects })}
        />
      </div>

      {dialog?.kind === 'revoke' ? <RevokeDialog certificate={dialog.certificate} closeTo={closeTo} /> : null}
      {dialog?.kind === 'reissue' ? <ReissueDialog certificate={dialog.certificate} closeTo={closeTo} /> : null}
    </>
  )
}

/** A course or program filter: every one, by title, saying which give no certificates now. */
function SubjectSelect({
  name,
  label,
  all,
  subjects,
  value,
  error,
}: {
  name: string
  label: string
  all: string
  subjects: Subject[]
  value: string
  error?: string
}) {
  const id = `certificates-${name}`
  return (
    <div className="min-w-0">
      <label htmlFor={id} className="field-label">
        {label}
      </label>
      <select
        id={id}
        name={name}
        defaultValue={value}
        className="field-input"
        aria-invalid={error ? true : undefined}
        aria-describedby={error ? `${id}-error` : undefined}
      >
        <option value="">{all}</option>
        {subjects.map((s) => (
          <option key={s.id} value={s.id}>
            {s.certificates ? s.title : `${s.title} (certificates off)`}
          </option>
        ))}
      </select>
      <p id={`${id}-error`} className="field-error">
        {error}
      </p>
    </div>
  )
}

/** What an empty list says, and what to do about it. */
function emptyState({
  filtered,
  hasErrors,
  input,
  subjects,
}: {
  filtered: boolean
  hasErrors: boolean
  input: { course: string; program: string }
  subjects: { courses: Subject[]; programs: Subject[] }
}) {
  if (hasErrors) return { emptyText: 'This filter cannot be read', emptyHint: 'Correct it above, or clear it.' }
  const off = (
    [
      ['course', subjects.courses.find((s) => s.id === input.course)],
      ['program', subjects.programs.find((s) => s.id === input.program)],
    ] as const
  ).find(([, subject]) => subject && !subject.certificates)
  if (off) {
    const [kind, subject] = off
    return {
      emptyText: `Certificates are off for ${subject!.title}`,
      emptyHint: (
        <>
          Switch them on in the {kind}’s settings on{' '}
          <Link to={`/admin/${kind}/${subject!.id}`} className="font-medium text-brand-700 underline">
            its page
          </Link>
          : learners who complete it then get one.
        </>
      ),
    }
  }
  if (filtered)
    return {
      emptyText: 'No certificate matches',
      emptyHint: (
        <>
          Search for part of a name or email, or the whole code.{' '}
          <Link to={PAGE} className="font-medium text-brand-700 underline">
            Show every certificate
          </Link>
        </>
      ),
    }
  const giving = [...subjects.courses, ...subjects.programs].filter((s) => s.certificates).length
  if (giving === 0)
    return {
      emptyText: 'No certificates yet',
      emptyHint: (
        <>
          Certificates are off for every course and program. Switch them on in a course’s or program’s settings (
          <Link to="/admin/courses" className="font-medium text-brand-700 underline">
            Courses
          </Link>
          ,{' '}
          <Link to="/admin/programs" className="font-medium text-brand-700 underline">
            Programs
          </Link>
          ): learners who complete it then get one.
        </>
      ),
    }
  return {
    emptyText: 'No certificates yet',
    emptyHint: `Certificates are on for ${giving === 1 ? 'one course or program' : `${giving} courses and programs`}; a learner gets one on completing it. Learners who completed before they were switched on get theirs with portal certificates issue.`,
  }
}

/** The name the certificate states, with a link to the learner's page, their email, and their name now if it changed. */
function Learner({ certificate: c }: { certificate: StaffCertificateView }) {
  return (
    <>
      <Link to={`/admin/user/${c.userId}`} className="font-medium text-brand-700 hover:underline">
        {c.learnerName}
      </Link>
      <span className="block break-all text-xs text-slate-500">{c.learnerEmail}</span>
      {c.currentName !== c.learnerName ? (
        <span className="block text-xs text-amber-900">Now named {c.currentName}</span>
      ) : null}
    </>
  )
}

/** The title the certificate states, with a link to its course's or program's page while that exists. */
function Title({ certificate: c }: { certificate: StaffCertificateView }) {
  if (!c.subjectId)
    return (
      <>
        {c.title}
        <span className="block text-xs text-slate-500">The {c.kind} was removed</span>
      </>
    )
  return (
    <Link to={`/admin/${c.kind}/${c.subjectId}`} className="text-brand-700 hover:underline">
      {c.title}
    </Link>
  )
}

/** Valid, or revoked with the date and, for the admin side, why. The words carry it; the colour repeats them. */
function State({ certificate: c }: { certificate: StaffCertificateView }) {
  if (c.state === 'valid')
    return (
      <span className="inline-block rounded-full bg-emerald-100 px-2 py-0.5 text-xs font-medium text-emerald-800">
        Valid
      </span>
    )
  return (
    <>
      <span className="inline-block whitespace-nowrap rounded-full bg-red-100 px-2 py-0.5 text-xs font-medium text-red-800">
        Revoked on <time dateTime={c.revokedAt!}>{formatLongDate(c.revokedAt!)}</time>
      </span>
      <span className="mt-1 block break-words text-xs text-slate-600">{c.revokedReason}</span>
    </>
  )
}

/** Revoke (a valid one) and Re-issue: each opens its dialog, through the URL. */
function Actions({ certificate: c }: { certificate: StaffCertificateView }) {
  const { pathname, search } = useLocation()
  const params = new URLSearchParams(search)
  return (
    <div className="flex flex-wrap gap-x-3 gap-y-1 whitespace-nowrap text-sm font-medium">
      {c.state === 'valid' ? (
        <Link
          to={tableHref(pathname, params, { revoke: c.code, reissue: null })}
          preventScrollReset
          className="text-red-700 hover:underline"
          aria-label={`Revoke ${c.code}`}
        >
          Revoke
        </Link>
      ) : null}
      <Link
        to={tableHref(pathname, params, { reissue: c.code, revoke: null })}
        preventScrollReset
        className="text-brand-700 hover:underline"
        aria-label={`Re-issue ${c.code}`}
      >
        Re-issue
      </Link>
    </div>
  )
}

/** Who and what a certificate is, for a dialog's description. */
const described = (c: StaffCertificateView) => `${c.code}: ${c.learnerName}, ${c.title}`

/** The dialog's form posts to the page as it is (its list and the dialog open), so a refusal comes back to it. */
function useActionUrl() {
  const { search } = useLocation()
  return search || '?'
}

function RevokeDialog({ certificate, closeTo }: { certificate: StaffCertificateView; closeTo: string }) {
  const actionData = useActionData<FormReply>()
  const busy = useNavigation().state === 'submitting'
  const [form, fields] = useZodForm(RevokeSchema, {
    id: `revoke-${certificate.id}`,
    lastResult: actionData?.result,
    checkOnSubmit: true,
  })
  return (
    <Overlay title="Revoke certificate" role="alertdialog" closeTo={closeTo} description={described(certificate)}>
      <Form
        method="post"
        action={useActionUrl()}
        preventScrollReset
        aria-labelledby={OVERLAY_TITLE_ID}
        {...getFormProps(form)}
        className="space-y-1"
      >
        <input type="hidden" name="intent" value="revoke" />
        <input type="hidden" name="code" value={certificate.code} />
        <p className="pb-3 text-sm text-slate-600">
          The verify page will say it is revoked, and since when; the reason is kept for the admin side only.
        </p>
        <FormTextareaField meta={fields.reason} label="Reason" rows={3} />
        <FormError id={form.errorId} errors={form.errors} />
        <div className="flex flex-wrap justify-end gap-3">
          <a href={closeTo} className="btn-secondary">
            Cancel
          </a>
          <button type="submit" className="btn bg-red-600 text-white hover:bg-red-700" disabled={busy}>
            {busy ? 'Revoking…' : 'Revoke certificate'}
          </button>
        </div>
      </Form>
    </Overlay>
  )
}

function ReissueDialog({ certificate: c, closeTo }: { certificate: StaffCertificateView; closeTo: string }) {
  const busy = useNavigation().state === 'submitting'
  return (
    <Overlay title="Re-issue certificate" role="alertdialog" closeTo={closeTo} description={described(c)}>
      <Form method="post" action={useActionUrl()} preventScrollReset aria-labelledby={OVERLAY_TITLE_ID}>
        <input type="hidden" name="intent" value="reissue" />
        <input type="hidden" name="code" value={c.code} />
        <p className="text-sm text-slate-700">
          A new certificate, with a new code, will state the learner’s name as it is now
          {c.currentName !== c.learnerName ? ` (${c.currentName}, not ${c.learnerName})` : ` (${c.currentName})`} and
          the {c.kind}’s title and issuer as they are now, dated today, with the same hours.{' '}
          {c.state === 'valid'
            ? 'This certificate is revoked as replaced by it.'
            : 'This certificate stays revoked, with its reason.'}
        </p>
        <div className="mt-4 flex flex-wrap justify-end gap-3">
          <a href={closeTo} className="btn-secondary">
            Cancel
          </a>
          <button type="submit" className="btn-primary" disabled={busy}>
            {busy ? 'Re-issuing…' : 'Re-issue certificate'}
          </button>
        </div>
      </Form>
    </Overlay>
  )
}

/** The export of the filter the page shows: every certificate of it, not only this page's. */
function exportHref(q: string, input: { course: string; program: string; state: string }) {
  const params = new URLSearchParams()
  if (q) params.set('q', q)
  for (const name of ['course', 'program', 'state'] as const) if (input[name]) params.set(name, input[name])
  const query = params.toString()
  return `${PAGE}/export${query ? `?${query}` : ''}`
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />
}
