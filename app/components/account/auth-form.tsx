import { getFormProps, type FormMetadata } from '@conform-to/react'
import { Form, Link, useNavigation } from '@remix-run/react'
import { type ReactNode } from 'react'
import { FormSubmit } from '#app/components/forms/form-submit.tsx'

/**
 * A signed-out page that is one form (Sign in, Forgot Password, a new password): the card with its
 * heading and a line under it (or, once the form has done its work, `notice` in its place), the form
 * posted to `action` (this page when left out) with its error and a full-width submit button, then a
 * link away. The button waits while the form is being sent, or while `busy` says so. `footer` goes under the
 * form (the sign-in page's company buttons); `hideSubmit` leaves the button out where the form cannot be used.
 */
export function AuthForm({
  form,
  title,
  intro,
  notice,
  action,
  submit,
  busy,
  busyLabel,
  link,
  footer,
  hideSubmit = false,
  children,
}: {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- any page's form, whatever its schema
  form: FormMetadata<any, string[]>
  title: string
  intro: string
  notice?: string
  action?: string
  submit: string
  busy?: boolean
  busyLabel?: string
  link?: { to: string; label: string }
  footer?: ReactNode
  hideSubmit?: boolean
  children: ReactNode
}) {
  const navigation = useNavigation()
  return (
    <div className="card w-full max-w-md p-8">
      <h1 className="text-2xl font-bold">{title}</h1>
      {notice ? (
        <p role="status" className="mt-4 rounded-md bg-emerald-50 p-4 text-sm text-emerald-900">
          {notice}
        </p>
      ) : (
        <p className="mt-1 text-sm text-slate-600">{intro}</p>
      )}
      <Form method="post" action={action} className="mt-6 space-y-2" {...getFormProps(form)}>
        {children}
        {hideSubmit ? null : (
          <FormSubmit
            form={form}
            label={submit}
            busy={busy ?? navigation.state === 'submitting'}
            busyLabel={busyLabel}
            className="btn-primary w-full"
          />
        )}
      </Form>
      {footer}
      {link ? (
        <p className="mt-4 text-center text-sm">
          <Link to={link.to} className="font-medium text-brand-600 hover:underline">
            {link.label}
          </Link>
        </p>
      ) : null}
    </div>
  )
}
