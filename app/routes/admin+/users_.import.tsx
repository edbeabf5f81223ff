import { json, redirect, type ActionFunctionArgs, type LoaderFunctionArgs, type MetaFunction } from '@remix-run/node'
import { Form, Link, useActionData, useLoaderData, useNavigation } from '@remix-run/react'
import { GeneralErrorBoundary } from '#app/components/error-boundary.tsx'
import { ColumnHeads } from '#app/components/ui/column-heads.tsx'
import { ScrollBox } from '#app/components/ui/scroll-box.tsx'
import { BusyButton } from '#app/components/ui/spinner.tsx'
import { invalid } from '#app/modules/errors.ts'
import { uploadRules } from '#app/modules/files/types.server.ts'
import { receiveForm } from '#app/modules/files/upload.server.ts'
import { previewUpload, type ImportPreview, type PlannedRow } from '#app/modules/users/import-files.server.ts'
import { startImportJob } from '#app/modules/users/import-jobs.server.ts'
import { FILE_FIELD, type ImportChoices } from '#app/modules/users/import-schema.ts'
import { PRODUCT_NAME } from '#app/utils/brand.ts'
import { discardUpload, pageAction, readForm, replyOnRefusal, type Refusal } from '#app/utils/forms.server.ts'
import { pageLoader } from '#app/utils/pages.server.ts'
import { requirePeopleManager } from '#app/utils/session.server.ts'
import { CountList, IMPORT_PATH as PATH, ImportHeading, plural } from './__import-parts.tsx'

// Import users (admins and the super admin): 1. upload a CSV file with the import's options; 2. see
// the dry run of it — counts, the first rows to create and to update, the failing rows — and confirm;
// 3. the import starts as a job and the page redirects to its progress (users_.import_.$jobId.tsx),
// which ends with the counts and the error CSV to download. Plain forms all through: it works without
// JavaScript.

export const meta: MetaFunction = () => [{ title: `Import users · ${PRODUCT_NAME}` }]

export const loader = (args: LoaderFunctionArgs) => pageLoader(args, loadPage)

async function loadPage({ request }: LoaderFunctionArgs) {
  await requirePeopleManager(request, '/admin/users')
  return json({ upload: uploadRules('userImport') })
}

type UploadReply = {
  step: 'upload'
  errors: Record<string, string>
  values: Record<string, string>
}
type PreviewReply = { step: 'preview'; preview: ImportPreview }
type ConfirmReply = { step: 'confirm'; error: string }
type Reply = UploadReply | PreviewReply | ConfirmReply

/** A refusal's errors by field (a form-wide one under ''). */
const errorsOf = (refusal: Refusal) => refusal.errors ?? { '': refusal.message }

export const action = (args: ActionFunctionArgs) => pageAction(args, runAction)

async function runAction({ request }: ActionFunctionArgs) {
  const user = await requirePeopleManager(request, '/admin/users')
  const multipart = /^multipart\/form-data/i.test(request.headers.get('Content-Type') ?? '')
  return multipart ? upload(request, user) : confirm(request, user)
}

type User = Awaited<ReturnType<typeof requirePeopleManager>>

const NO_FILE = 'Choose a CSV file to import.'

/** Step 1 → 2: keep the file, dry-run it; a refused file is removed again. */
async function upload(request: Request, user: User) {
  const received = await replyOnRefusal(
    () => receiveForm(request, { kind: 'userImport', fileFields: [FILE_FIELD], actor: user }),
    (refusal): Reply => ({ step: 'upload', errors: errorsOf(refusal), values: choicesOf(refusal.fields) }),
  )
  if (!received.ok) return received.response
  const { file, fields } = received.value
  const values = choicesOf(fields)
  const previewed = await replyOnRefusal(
    async () => {
      if (!file) throw invalid(NO_FILE, { [FILE_FIELD]: NO_FILE })
      return previewUpload(user, { ...fields, [FILE_FIELD]: file.key })
    },
    (refusal): Reply => ({ step: 'upload', errors: errorsOf(refusal), values }),
    () => discardUpload(file),
  )
  if (!previewed.ok) return previewed.response
  return json<Reply>({ step: 'preview', preview: previewed.value })
}

/** Step 2 → 3: the import starts as a job; a redirect to its progress (a reload imports nothing twice). */
async function confirm(request: Request, user: User) {
  const form = await readForm(request)
  const started = await replyOnRefusal(
    () => startImportJob(user, Object.fromEntries(form)),
    (refusal): Reply => ({ step: 'confirm', error: Object.values(errorsOf(refusal))[0] ?? 'The import failed.' }),
  )
  if (!started.ok) return started.response
  return redirect(`${PATH}/${started.value.id}`)
}

/** What was chosen, to show the form again as it was sent. */
const choicesOf = (fields: Record<string, string>) => ({
  onExisting: fields.onExisting ?? 'skip',
  invite: fields.invite ?? '',
  delimiter: fields.delimiter ?? 'auto',
})

export default function ImportUsers() {
  const { upload } = useLoaderData<typeof loader>()
  const reply = useActionData<typeof action>() as Reply | undefined
  return (
    <div className="max-w-3xl">
      <ImportHeading />
      {reply?.step === 'preview' ? (
        <DryRun preview={reply.preview} />
      ) : reply?.step === 'confirm' ? (
        <section aria-labelledby="import-failed" className="card mt-6 p-4 sm:p-6">
          <h2 id="import-failed" className="text-lg font-semibold">
            The import did not run
          </h2>
          <p role="alert" className="mt-2 text-sm text-red-700">
            {reply.error}
          </p>
          <p className="mt-4">
            <Link to={PATH} className="btn-secondary">
              Start again
            </Link>
          </p>
        </section>
      ) : (
        <UploadForm upload={upload} reply={reply?.step === 'upload' ? reply : undefined} />
      )}
    </div>
  )
}

function UploadForm({ upload, reply }: { upload: { accept: string; hint: string }; reply?: UploadReply }) {
  const navigation = useNavigation()
  const busy = navigation.state === 'submitting' && navigation.formEncType === 'multipart/form-data'
  const errors = reply?.errors ?? {}
  const values = reply?.values
  const fileError = errors[FILE_FIELD] ?? errors['']
  return (
    <Form method="post" encType="multipart/form-data" className="card mt-6 grid gap-5 p-4 sm:p-6">
      <p className="text-sm text-slate-600">
        One person per row: first name, last name, email and username, and optionally role, password, courses and
        programs (several separated by “;”, by title or id, each with a due date after “@” if it has one, such as SQL
        Basics@2026-12-15) and time zone (such as Europe/Berlin). Nothing is written until you confirm the dry run.
      </p>
      <div>
        <label htmlFor="import-file" className="field-label">
          CSV file
        </label>
        <input
          id="import-file"
          type="file"
          name={FILE_FIELD}
          accept={`${upload.accept},text/csv`}
          required
          className="field-input"
          aria-describedby={`import-file-hint${fileError ? ' import-file-error' : ''}`}
          aria-invalid={fileError ? true : undefined}
        />
        <p id="import-file-hint" className="mt-1 text-xs text-slate-500">
          {upload.hint}; UTF-8, comma, semicolon or tab separated, with a header line.
        </p>
        {fileError ? (
          <p id="import-file-error" role="alert" className="field-error">
            {fileError}
          </p>
        ) : null}
      </div>
      <fieldset>
        <legend className="field-label">When an account with the row’s email exists</legend>
        <div className="flex flex-wrap gap-x-6 gap-y-2 text-sm">
          <label className="inline-flex items-center gap-2">
            <input type="radio" name="onExisting" value="skip" defaultChecked={values?.onExisting !== 'update'} />
            Skip it
          </label>
          <label className="inline-flex items-center gap-2">
            <input type="radio" name="onExisting" value="update" defaultChecked={values?.onExisting === 'update'} />
            Update it with the row’s values
          </label>
        </div>
        {errors.onExisting ? (
          <p role="alert" className="field-error">
            {errors.onExisting}
          </p>
        ) : null}
      </fieldset>
      <div>
        <label className="inline-flex items-start gap-2 text-sm">
          <input type="checkbox" name="invite" className="mt-1" defaultChecked={values?.invite === 'on'} />
          <span>Send invitations to accounts without a password (a link to set one, valid 7 days)</span>
        </label>
      </div>
      <div>
        <label htmlFor="import-delimiter" className="field-label">
          Separator
        </label>
        <select
          id="import-delimiter"
          name="delimiter"
          defaultValue={values?.delimiter ?? 'auto'}
          className="field-input sm:w-64"
          aria-invalid={errors.delimiter ? true : undefined}
        >
          <option value="auto">Detect from the header line</option>
          <option value=",">Comma (,)</option>
          <option value=";">Semicolon (;)</option>
        </select>
        {errors.delimiter ? (
          <p role="alert" className="field-error">
            {errors.delimiter}
          </p>
        ) : null}
      </div>
      <div>
        <BusyButton busy={busy} label="Upload and check" busyLabel="Checking the file…" />
      </div>
    </Form>
  )
}

const cell = 'px-3 py-2 align-top'
const head = 'px-3 py-2 font-semibold'

/** The first rows the import would create or update, and how many more there are. */
function PlannedRows({ kind, rows, total }: { kind: 'create' | 'update'; rows: PlannedRow[]; total: number }) {
  if (total === 0) return null
  const title = kind === 'create' ? 'Accounts to create' : 'Accounts to update'
  const id = `planned-${kind}`
  return (
    <>
      <h3 id={id} className="mt-6 font-semibold">
        {title}
      </h3>
      <ScrollBox labelledBy={id} className="mt-2">
        <table aria-labelledby={id} className="min-w-full divide-y divide-slate-200 text-left text-sm">
          <ColumnHeads names={['Line', 'Name', 'Email', 'Username', 'Role', 'Courses and programs']} className={head} />
          <tbody className="divide-y divide-slate-100">
            {rows.map((r) => (
              <tr key={r.row}>
                <td className={`${cell} tabular-nums`}>{r.row}</td>
                <td className={cell}>
                  {r.firstName} {r.lastName}
                </td>
                <td className={`${cell} break-all`}>{r.email}</td>
                <td className={`${cell} break-all`}>{r.userName}</td>
                <td className={cell}>{r.role || (kind === 'create' ? 'learner' : 'unchanged')}</td>
                <td className={cell}>{[r.courses, r.programs].filter(Boolean).join('; ') || '—'}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </ScrollBox>
      {total > rows.length ? (
        <p className="mt-2 text-sm">
          … and {plural(total - rows.length, 'more account')} to {kind}.
        </p>
      ) : null}
    </>
  )
}

function DryRun({ preview }: { preview: ImportPreview }) {
  const navigation = useNavigation()
  const busy = navigation.state === 'submitting' && navigation.formEncType !== 'multipart/form-data'
  const { counts, plan, problems, choices } = preview
  const changes = counts.created + counts.updated + counts.assigned
  return (
    <section aria-labelledby="dry-run" className="card mt-6 p-4 sm:p-6">
      <h2 id="dry-run" className="text-lg font-semibold">
        Dry run of {preview.name}
      </h2>
      <p className="mt-1 text-sm text-slate-600">{plural(counts.rows, 'row')} checked; nothing has been written yet.</p>
      <CountList
        items={[
          ['To create', counts.created],
          ['To update', counts.updated],
          ['Skipped', counts.skipped],
          ['Failed', counts.failed],
        ]}
      />
      <p className="mt-2 text-sm text-slate-600">{plural(counts.assigned, 'course or program assignment')} to add.</p>
      <PlannedRows kind="create" rows={plan.create} total={counts.created} />
      <PlannedRows kind="update" rows={plan.update} total={counts.updated} />
      {problems.length > 0 ? (
        <>
          <h3 id="failing-rows" className="mt-6 font-semibold">
            Rows that will not be imported
          </h3>
          <ScrollBox labelledBy="failing-rows" className="mt-2">
            <table className="min-w-full divide-y divide-slate-200 text-left text-sm">
              <caption className="sr-only">Rows that will not be imported: line, column and problem</caption>
              <ColumnHeads names={['Line', 'Column', 'Problem']} className={head} />
              <tbody className="divide-y divide-slate-100">
                {problems.map((p, i) => (
                  <tr key={`${p.row}-${p.field}-${i}`}>
                    <td className="px-3 py-2 tabular-nums">{p.row}</td>
                    <td className="px-3 py-2">{p.field || 'whole row'}</td>
                    <td className="px-3 py-2">{p.message}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </ScrollBox>
          {preview.moreFailedRows > 0 ? (
            <p className="mt-2 text-sm">
              … and {plural(preview.moreFailedRows, 'more failing row')}; the error file after the import lists them
              all.
            </p>
          ) : null}
        </>
      ) : null}
      <div className="mt-6 flex flex-wrap items-center gap-3">
        {changes > 0 ? (
          <Form method="post">
            <ConfirmFields choices={choices} />
            <BusyButton busy={busy} label="Confirm import" busyLabel="Starting the import…" />
          </Form>
        ) : (
          <p className="text-sm">Nothing in this file would change anything.</p>
        )}
        <Link to={PATH} className="btn-secondary">
          Start again
        </Link>
      </div>
    </section>
  )
}

/** The dry run's file and choices, sent back as they were checked (the server checks them again). */
function ConfirmFields({ choices }: { choices: ImportChoices }) {
  return (
    <>
      <input type="hidden" name="key" value={choices.key} />
      <input type="hidden" name="onExisting" value={choices.onExisting} />
      <input type="hidden" name="delimiter" value={choices.delimiter} />
      {choices.invite ? <input type="hidden" name="invite" value="on" /> : null}
    </>
  )
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />
}
