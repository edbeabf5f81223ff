import { json, type LoaderFunctionArgs, type MetaFunction } from '@remix-run/node'
import { Form, useLoaderData } from '@remix-run/react'
import { GeneralErrorBoundary } from '#app/components/error-boundary.tsx'
import { TABLE_CELL, TableSection } from '#app/components/ui/table-section.tsx'
import { UtcTime } from '#app/components/ui/utc-time.tsx'
import { SIGN_IN_OUTCOMES, type SignInOutcome } from '#app/modules/auth/schema.ts'
import { listSignInEvents } from '#app/modules/auth/sign-ins.server.ts'
import { signInProviders } from '#app/modules/sso/providers.server.ts'
import type { Refusal } from '#app/modules/sso/schema.ts'
import { PRODUCT_NAME } from '#app/utils/brand.ts'
import { pageLoader } from '#app/utils/pages.server.ts'
import { requirePagePermission } from '#app/utils/session.server.ts'

// The record of sign-ins for admins: every attempt, by password or through a company's provider, newest first,
// with what came of it; narrowed by account, outcome, provider or address (a plain GET form: no JavaScript needed).

export const meta: MetaFunction = () => [{ title: `Sign-ins · ${PRODUCT_NAME}` }]

const SHOWN = 200

/** Each outcome in words. */
const OUTCOME_WORDS: Record<SignInOutcome, string> = {
  checking: 'Being checked',
  success: 'Signed in',
  wrong_password: 'Wrong password',
  throttled: 'Refused: too many failures',
  password_changed: 'Password changed',
  disabled: 'Refused: account disabled',
  refused: 'Refused',
}

/** Why a sign-in through a provider was refused, in words. */
const REASON_WORDS: Record<Refusal, string> = {
  state: 'expired or replayed sign-in',
  nonce: 'ID token for another sign-in',
  token: 'ID token failed its checks',
  provider_error: 'the provider refused',
  unreachable: 'the provider did not answer',
  no_email: 'no email from the provider',
  email_unverified: 'email not verified',
  domain: 'email at a domain the provider does not serve',
  disabled: 'account disabled',
  no_account: 'no portal account',
  not_in_group: 'not in an account group',
}

export const loader = (args: LoaderFunctionArgs) => pageLoader(args, loadPage)

async function loadPage({ request }: LoaderFunctionArgs) {
  const user = await requirePagePermission(request, 'read:sign-ins', '/admin/dashboard')
  const params = new URL(request.url).searchParams
  const pick = (name: string) => params.get(name)?.trim() || undefined
  const filter = {
    user: pick('user'),
    address: pick('address'),
    outcome: SIGN_IN_OUTCOMES.find((o) => o === pick('outcome')),
    provider: pick('provider'),
  }
  const [events, providers] = await Promise.all([
    listSignInEvents(user, { ...filter, limit: SHOWN }),
    signInProviders(),
  ])
  return json(
    { events, providers: providers.map((p) => ({ slug: p.slug, name: p.name })), filter },
    { headers: { 'Cache-Control': 'private, no-store' } },
  )
}

export default function SignIns() {
  const { events, providers, filter } = useLoaderData<typeof loader>()
  const nameOf = (slug: string) => providers.find((p) => p.slug === slug)?.name ?? slug
  const filtered = Object.values(filter).some(Boolean)
  return (
    <>
      <h1 className="text-2xl font-bold">Sign-ins</h1>
      <p className="mt-2 max-w-3xl text-sm text-slate-600">
        Every attempt to sign in, by password or through a company's provider, newest first ({SHOWN} at most), kept for
        90 days. A refused sign-in through a provider says why.
      </p>
      <Form method="get" className="mt-6 grid max-w-3xl gap-3 sm:grid-cols-2">
        <label className="field-label">
          Account (email or username)
          <input name="user" defaultValue={filter.user ?? ''} className="field-input mt-1" />
        </label>
        <label className="field-label">
          Address
          <input name="address" defaultValue={filter.address ?? ''} className="field-input mt-1" />
        </label>
        <label className="field-label">
          Outcome
          <select name="outcome" defaultValue={filter.outcome ?? ''} className="field-input mt-1">
            <option value="">Any outcome</option>
            {SIGN_IN_OUTCOMES.map((o) => (
              <option key={o} value={o}>
                {OUTCOME_WORDS[o]}
              </option>
            ))}
          </select>
        </label>
        <label className="field-label">
          Through
          <select name="provider" defaultValue={filter.provider ?? ''} className="field-input mt-1">
            <option value="">Password or any provider</option>
            {providers.map((p) => (
              <option key={p.slug} value={p.slug}>
                {p.name}
              </option>
            ))}
          </select>
        </label>
        <div className="flex gap-3 sm:col-span-2">
          <button type="submit" className="btn-primary">
            Show
          </button>
          {filtered ? (
            <a href="/admin/sign-ins" className="btn-secondary">
              Show all
            </a>
          ) : null}
        </div>
      </Form>

      <TableSection
        id="sign-ins-heading"
        title="Attempts"
        caption="Sign-in attempts, newest first"
        columns={['When', 'Outcome', 'Account', 'Through', 'Address']}
        empty={
          events.length ? undefined : filtered ? 'No sign-in attempt matches.' : 'Nobody has tried to sign in yet.'
        }
        className="mt-8"
      >
        {events.map((event) => (
          <tr key={event.id}>
            <td className={`${TABLE_CELL} whitespace-nowrap`}>
              <UtcTime iso={event.at} />
            </td>
            <td className={`${TABLE_CELL} ${event.outcome === 'success' ? '' : 'text-red-800'}`}>
              {OUTCOME_WORDS[event.outcome]}
              {event.reason ? (
                <span className="block text-xs">{REASON_WORDS[event.reason as Refusal] ?? event.reason}</span>
              ) : null}
            </td>
            <th scope="row" className={`${TABLE_CELL} break-all font-medium`}>
              {event.account || 'unknown'}
            </th>
            <td className={TABLE_CELL}>
              {event.provider ? nameOf(event.provider) : 'Password'}
              {event.subject ? (
                <span className="block break-all text-xs text-slate-500">
                  subject <code>{event.subject}</code>
                </span>
              ) : null}
            </td>
            <td className={`${TABLE_CELL} break-all`}>{event.address ?? 'unknown'}</td>
          </tr>
        ))}
      </TableSection>
    </>
  )
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />
}
