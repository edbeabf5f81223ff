import { parseWithZod } from '@conform-to/zod'
import { redirect, type ActionFunctionArgs, type LoaderFunctionArgs, type MetaFunction } from '@remix-run/node'
import { useActionData, useNavigation, useSearchParams } from '@remix-run/react'
import { AuthForm } from '#app/components/account/auth-form.tsx'
import { GeneralErrorBoundary } from '#app/components/error-boundary.tsx'
import { FormField, FormPasswordField } from '#app/components/forms/fields.tsx'
import { useZodForm } from '#app/components/forms/use-zod-form.ts'
import { landingPath } from '#app/modules/auth/permissions.ts'
import { LoginSchema } from '#app/modules/auth/schema.ts'
import { forbidden } from '#app/modules/errors.ts'
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
  return null
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

export default function SignIn() {
  const actionData = useActionData<typeof action>()
  const [params] = useSearchParams()
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
      link={{ to: '/forgot-Password', label: 'Forgot Password?' }}
    >
      <input type="hidden" name="redirectTo" value={params.get('redirectTo') ?? ''} />
      <FormField meta={fields.email} label="Username / Email" autoComplete="username" autoFocus />
      <FormPasswordField meta={fields.password} label="Password" autoComplete="current-password" />
    </AuthForm>
  )
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />
}
