import { parseWithZod } from '@conform-to/zod'
import { json } from '@remix-run/node'
import { passwordLinkIsValid, resetPassword, UnusableLink } from '#app/modules/auth/password-links.server.ts'
import { NewPasswordSchema } from '#app/modules/users/schema.ts'
import { invalidForm, readForm, submitToService } from '#app/utils/forms.server.ts'
import type { RefusalRedirect } from '#app/utils/pages.server.ts'
import { redirectWithSuccess } from '#app/utils/toast.server.ts'

// Both spellings of the reset page: /reset-Password/{token} and /reset-password?token=…

/**
 * A link that cannot be used (unknown, used or expired) sends the visitor to /forgot-Password with the
 * old client's message, from the loader and the action alike; any other refusal is shown on the form.
 */
export const UNUSABLE_LINK: RefusalRedirect<unknown>[] = [{ when: UnusableLink, to: () => '/forgot-Password' }]

const PASSWORD_FIELDS = ['password', 'confirmPassword']

export async function resetPageLoader(token: string) {
  if (!(await passwordLinkIsValid(token))) throw new UnusableLink()
  return json(null)
}

export async function resetPageAction(request: Request, token: string) {
  const submission = parseWithZod(await readForm(request), { schema: NewPasswordSchema })
  if (submission.status !== 'success') return invalidForm(submission, { hideFields: PASSWORD_FIELDS })
  const reset = await submitToService(submission, () => resetPassword(token, submission.value), {
    hideFields: PASSWORD_FIELDS,
    passOn: [UnusableLink],
  })
  if (!reset.ok) return reset.response
  return redirectWithSuccess('/sign-in', 'Your password is set. Sign in with it now.')
}
