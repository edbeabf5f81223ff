import { type FormMetadata } from '@conform-to/react'
import { FormError } from '#app/components/ui/form-footer.tsx'

/**
 * The end of a form with one button: the form-level error (announced when it appears), then the
 * submit button, disabled and saying `busyLabel` while the form is on its way.
 */
export function FormSubmit({
  form,
  label,
  busy,
  busyLabel = label,
  className = 'btn-primary',
}: {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- any form, whatever its schema
  form: FormMetadata<any, string[]>
  label: string
  busy?: boolean
  busyLabel?: string
  className?: string
}) {
  return (
    <>
      <FormError id={form.errorId} errors={form.errors} />
      <button type="submit" className={className} disabled={busy}>
        {busy ? busyLabel : label}
      </button>
    </>
  )
}
