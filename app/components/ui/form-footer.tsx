import { Link } from '@remix-run/react'

/** The form-level error, where Conform's form.errorId points and a screen reader hears it appear. */
export function FormError({ id, errors }: { id?: string; errors?: string[] }) {
  return (
    <p id={id} role="alert" className="field-error">
      {errors?.[0]}
    </p>
  )
}

/**
 * The end of a form page: the form-level error (Conform's form.errorId, announced when it appears),
 * Save, disabled while saving or while an upload runs, and Cancel back to where the admin came from.
 */
export function FormFooter({
  errorId,
  error,
  saving,
  busy = false,
  cancelTo,
}: {
  errorId?: string
  error?: string
  saving: boolean
  busy?: boolean
  cancelTo?: string
}) {
  return (
    <>
      <FormError id={errorId} errors={error ? [error] : undefined} />
      <div className="flex gap-3">
        <button type="submit" className="btn-primary" disabled={busy || saving}>
          {saving ? 'Saving…' : 'Save'}
        </button>
        {cancelTo ? (
          <Link to={cancelTo} className="btn-secondary">
            Cancel
          </Link>
        ) : null}
      </div>
    </>
  )
}
