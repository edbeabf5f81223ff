import { parseWithZod } from '@conform-to/zod'
import { redirect, type ActionFunctionArgs, type LoaderFunctionArgs, type MetaFunction } from '@remix-run/node'
import { useActionData, useLoaderData, useNavigation, useSearchParams } from '@remix-run/react'
import { useState } from 'react'
import { AuthForm } from '#app/components/account/auth-form.tsx'
import { GeneralErrorBoundary } from '#app/components/error-boundary.tsx'
import { FormField, FormPasswordField } from '#app/components/forms/fields.tsx'
import { useZodForm } from '#app/components/forms/use-zod-form.ts'
import { landingPath } from '#app/modules/auth/permissions.ts'
import { LoginSchema } from '#app/modules/auth/schema.ts'
import { forbidden } from '#app/modules/errors.ts'
import { signInProviders, type SignInProvider } from '#app/modules/sso/providers.server.ts'
import { signInWith } from '#app/modules/sso/schema.ts'
import { PRODUCT_NAME } from '#app/utils/brand.ts'
import { invalidForm, pageAction, readForm, submitToService } from '#app/utils/forms.server.ts'
import { pageLoader } from '#app/utils/pages.server.ts'
import { safeRedirect } from '#app/utils/redirect.ts'
import { authenticator, commitToken, getSessionUser, isSameSiteRequest } from '#app/utils/session.server.ts'

export const meta: MetaFunction = () => [{ title: `Sign in · ${PRODUCT_NAME}` }]

export const loader = (args: LoaderFunctionArgs) => pageLoader(args, loadPage)

async function loadPage({ request }: LoaderFunctionArgs) {
  const user = await getSessionUser(request)
  if (user) {
    const redirectTo = new URL(request.url).searchParams.get('redirectTo')
    throw redirect(safeRedirect(redirectTo, landingPath(user.roleId)))
  }
  return { providers: await signInProviders() }
}

export const action = (args: ActionFunctionArgs) => pageAction(args, runAction)

async function runAction({ request }: ActionFunctionArgs) {
  // another site may not sign a visitor in (to an account of its choosing)
  if (!isSameSiteRequest(request)) throw forbidden('Requests from other sites are refused.')
  const formData = await readForm(request.clone())
  const submission = parseWithZod(formData, { schema: LoginSchema })
  if (submission.status !== 'success') return invalidForm(submission, { hideFields: ['password'] })
  // the same answer whether or not the account exists
  const signedIn = await submitToService(submission, () => authenticator().authenticate('form', request), {
    hideFields: ['password'],
    toast: true,
  })
  if (!signedIn.ok) return signedIn.response
  const { user, token } = signedIn.value
  const to = safeRedirect(formData.get('redirectTo'), landingPath(user.roleId))
  return redirect(to, { headers: { 'Set-Cookie': await commitToken(request, token) } })
}

/** The provider that serves the domain of what is typed as the email, if one does. */
function providerOfEmail(providers: SignInProvider[], typed: string) {
  const at = typed.lastIndexOf('@')
  if (at < 1) return undefined
  const domain = typed
    .slice(at + 1)
    .trim()
    .toLowerCase()
  return providers.find((p) => p.domains.includes(domain))
}

export default function SignIn() {
  const actionData = useActionData<typeof action>()
  const { providers } = useLoaderData<typeof loader>()
  const [params] = useSearchParams()
  const [typed, setTyped] = useState('')
  const offered = providerOfEmail(providers, typed)
  const navigation = useNavigation()
  const [form, fields] = useZodForm(LoginSchema, {
    id: 'sign-in',
    lastResult: actionData?.result,
  })
  const busy = navigation.state !== 'idle' && navigation.formAction?.toLowerCase().startsWith('/sign-in')
  return (
    <AuthForm
      form={form}
      title="Sign in"
      intro="Welcome back. Sign in to continue your courses."
      submit="Sign In"
      busy={busy}
      busyLabel="Signing in…"
      link={offered?.required ? undefined : { to: '/forgot-Password', label: 'Forgot Password?' }}
      hideSubmit={offered?.required}
      footer={
        providers.length ? (
          <CompanySignIn providers={providers} offered={offered} email={typed} redirectTo={params.get('redirectTo')} />
        ) : null
      }
    >
      <input type="hidden" name="redirectTo" value={params.get('redirectTo') ?? ''} />
      <FormField
        meta={fields.email}
        label="Username / Email"
        autoComplete="username"
        autoFocus
        onInput={(event) => setTyped(event.currentTarget.value)}
      />
      {offered?.required ? null : (
        <FormPasswordField meta={fields.password} label="Password" autoComplete="current-password" />
      )}
    </AuthForm>
  )
}

/**
 * The company sign-in buttons, one per provider. An email typed whose domain a provider serves brings that
 * provider forward (home-realm discovery); where the provider is required, it is the only way in.
 */
function CompanySignIn({
  providers,
  offered,
  email,
  redirectTo,
}: {
  providers: SignInProvider[]
  offered: SignInProvider | undefined
  email: string
  redirectTo: string | null
}) {
  const href = (provider: SignInProvider) => {
    const query = new URLSearchParams()
    if (redirectTo) query.set('redirectTo', redirectTo)
    if (provider === offered && email.includes('@')) query.set('email', email.trim())
    const search = query.toString()
    return `/sso/${provider.slug}${search ? `?${search}` : ''}`
  }
  const domain = email
    .slice(email.lastIndexOf('@') + 1)
    .trim()
    .toLowerCase()
  return (
    <div className="mt-6">
      {offered ? (
        <div role="status" className="mb-4 rounded-md bg-brand-50 p-4 text-sm text-slate-900">
          <p>
            {offered.required
              ? `Accounts at ${domain} sign in with ${offered.name}; their passwords are kept there.`
              : `Accounts at ${domain} can sign in with ${offered.name}.`}
          </p>
          <a href={href(offered)} className="btn-primary mt-3 w-full">
            {signInWith(offered.name)}
          </a>
        </div>
      ) : null}
      <p className="text-center text-sm text-slate-600">Or sign in with your company account</p>
      <ul className="mt-2 space-y-2">
        {providers.map((provider) => (
          <li key={provider.slug}>
            <a href={href(provider)} className="btn-secondary w-full">
              {signInWith(provider.name)}
            </a>
          </li>
        ))}
      </ul>
    </div>
  )
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />
}
