import { Form, useNavigation } from '@remix-run/react'
import { LOG_OUT_EVERYWHERE_INTENT } from '#app/modules/auth/schema.ts'

/** The profile page's second form: ends every session and API token of the account (a plain POST, no script needed). */
export function LogOutEverywhere() {
  const navigation = useNavigation()
  const busy = navigation.state !== 'idle' && navigation.formData?.get('intent') === LOG_OUT_EVERYWHERE_INTENT
  return (
    <section className="card mt-6 max-w-xl p-6" aria-labelledby="log-out-everywhere">
      <h2 id="log-out-everywhere" className="text-lg font-semibold">
        Signed in somewhere else?
      </h2>
      <p className="mt-1 text-sm text-slate-600">
        Logging out everywhere ends every session of your account, on this device and every other, and every API token.
        You then sign in again here.
      </p>
      <Form method="post" className="mt-4">
        <button type="submit" name="intent" value={LOG_OUT_EVERYWHERE_INTENT} className="btn-secondary" disabled={busy}>
          {busy ? 'Logging out…' : 'Log out everywhere'}
        </button>
      </Form>
    </section>
  )
}
