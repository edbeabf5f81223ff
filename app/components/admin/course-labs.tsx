import { Form, Link, useActionData, useNavigation, useSearchParams } from '@remix-run/react'
import { EmptyState } from '#app/components/ui/empty-state.tsx'
import { DeleteButtons, Overlay, OVERLAY_TITLE_ID } from '#app/components/ui/overlay.tsx'
import { BusyButton } from '#app/components/ui/spinner.tsx'
import { UtcTime } from '#app/components/ui/utc-time.tsx'
import type { CourseLab } from '#app/modules/labs/admin.server.ts'

// The Labs tab of the admin course page: each lab with its exercises, minutes, whether learners see it
// and when it was built; Show/Hide and Delete (a confirmation dialog, a page section without JavaScript)
// for admins; the "Add Lab" form, a plain multipart form that takes a zipped lab folder.

type LabRow = Omit<CourseLab, 'orderId'>

/** The reply of a refused Add Lab form: the message shown at its file field. */
export type AddLabReply = { intent: 'addLab'; error: string }

const FILE_FIELD = 'labZip'

export function LabsTab({
  courseId,
  labs,
  canEdit,
  deleteTo,
}: {
  courseId: string
  labs: LabRow[]
  canEdit: boolean
  /** the page's address with the delete dialog of a lab open */
  deleteTo: (labId: string) => string
}) {
  return (
    <>
      {canEdit && labs.length > 1 ? (
        <div className="mb-4 flex flex-wrap gap-3">
          <Link to={`/admin/rearrangeLabs/${courseId}`} className="btn-secondary">
            Rearrange Labs
          </Link>
        </div>
      ) : null}
      {labs.length === 0 ? (
        <EmptyState title="No labs yet" text={canEdit ? 'Upload the zip of a lab folder below.' : undefined} />
      ) : (
        <ol className="card divide-y divide-slate-100">
          {labs.map((lab, index) => (
            <li key={lab.id} className="flex flex-wrap items-center gap-3 px-4 py-3 text-sm" data-testid="admin-lab">
              <span className="w-6 text-right tabular-nums text-slate-500">{index + 1}.</span>
              <div className="min-w-0 flex-1 basis-48">
                <Link to={`/admin/lab/${lab.id}`} className="break-words font-medium text-brand-700 hover:underline">
                  {lab.title}
                </Link>
                <p className="mt-0.5 text-xs text-slate-500">
                  {lab.exercises} {lab.exercises === 1 ? 'exercise' : 'exercises'} · {lab.minutes} min · built{' '}
                  {lab.builtAt ? <UtcTime iso={lab.builtAt} /> : 'never'}
                </p>
              </div>
              {!lab.visible ? (
                <span className="rounded-full bg-amber-100 px-2 py-0.5 font-medium text-amber-800">Hidden</span>
              ) : null}
              {canEdit ? <LabActions lab={lab} deleteTo={deleteTo(lab.id)} /> : null}
            </li>
          ))}
        </ol>
      )}
      {canEdit ? <AddLabForm /> : null}
    </>
  )
}

function LabActions({ lab, deleteTo }: { lab: LabRow; deleteTo: string }) {
  const navigation = useNavigation()
  const busy =
    navigation.state === 'submitting' &&
    (navigation.formAction ?? '').includes('intent=visibility') &&
    navigation.formData?.get('labId') === lab.id
  return (
    <div className="flex gap-2">
      <Form method="post" action="?tab=labs&intent=visibility" preventScrollReset>
        <input type="hidden" name="labId" value={lab.id} />
        <input type="hidden" name="visible" value={lab.visible ? 'false' : 'true'} />
        <button
          type="submit"
          className="btn-secondary py-1"
          disabled={busy}
          aria-label={`${lab.visible ? 'Hide' : 'Show'} ${lab.title}`}
        >
          {lab.visible ? 'Hide' : 'Show'}
        </button>
      </Form>
      <Link
        to={deleteTo}
        preventScrollReset
        className="btn py-1 text-red-700 hover:bg-red-50"
        aria-label={`Delete ${lab.title}`}
      >
        Delete
      </Link>
    </div>
  )
}

function AddLabForm() {
  const reply = useActionData<AddLabReply>()
  const [params] = useSearchParams()
  const navigation = useNavigation()
  const busy = navigation.state === 'submitting' && (navigation.formAction ?? '').includes('intent=addLab')
  const error = params.get('intent') === 'addLab' || reply?.intent === 'addLab' ? reply?.error : undefined
  return (
    <section aria-labelledby="add-lab" className="card mt-6 p-4 sm:p-6">
      <h2 id="add-lab" className="text-lg font-semibold">
        Add Lab
      </h2>
      <Form
        method="post"
        action="?tab=labs&intent=addLab"
        encType="multipart/form-data"
        preventScrollReset
        aria-labelledby="add-lab"
        className="mt-3 grid gap-4"
      >
        <div>
          <label htmlFor="lab-zip" className="field-label">
            Zipped lab folder
          </label>
          <input
            id="lab-zip"
            type="file"
            name={FILE_FIELD}
            accept=".zip,application/zip"
            required
            className="field-input"
            aria-describedby={`lab-zip-hint${error ? ' lab-zip-error' : ''}`}
            aria-invalid={error ? true : undefined}
          />
          <p id="lab-zip-hint" className="mt-1 text-xs text-slate-500">
            A .zip of the lab’s folder (lab.yaml, its dataset and CSV files), up to 50 MB unpacked. A lab with the same
            title in this course is updated: learners keep their attempts at the exercises whose key stays.
          </p>
          {error ? (
            <p id="lab-zip-error" role="alert" className="field-error whitespace-pre-line break-words">
              {error}
            </p>
          ) : null}
        </div>
        <div>
          <BusyButton busy={busy} label="Upload Lab" busyLabel="Building the lab…" />
        </div>
      </Form>
    </section>
  )
}

/** Asks before a lab goes: its exercises and every attempt at them go with it. */
export function DeleteLabDialog({ lab, closeTo }: { lab: LabRow; closeTo: string }) {
  const navigation = useNavigation()
  const busy = navigation.state === 'submitting' && (navigation.formAction ?? '').includes('intent=deleteLab')
  return (
    <Overlay
      title="Delete lab"
      role="alertdialog"
      closeTo={closeTo}
      description={
        <>
          Delete “{lab.title}”? This cannot be undone. Its exercises, every learner’s attempts at them and its sandbox
          databases are deleted too.
        </>
      }
    >
      <Form
        method="post"
        action="?tab=labs&intent=deleteLab"
        preventScrollReset
        aria-labelledby={OVERLAY_TITLE_ID}
        className="flex justify-end gap-3"
      >
        <input type="hidden" name="labId" value={lab.id} />
        <DeleteButtons closeTo={closeTo} busy={busy} />
      </Form>
    </Overlay>
  )
}
