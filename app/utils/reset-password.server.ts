import { parseWithZod } from '@conform-to/zod'
import { json } from '@remix-run/node'
import { passwordLinkIsValid, resetPassword, TOKEN_EXPIRED } from '#app/modules/auth/password-links.server.ts'
import { isServiceError } from '#app/modules/errors.ts'
import { NewPasswordSchema } from '#app/modules/users/schema.ts'
import { invalidForm, readForm } from './forms.server.ts'
import { redirectWithError, redirectWithSuccess } from './toast.server.ts'

// Both spellings of the reset page: /reset-Password/{token} and /reset-password?token=…

/** A link that cannot be used sends the visitor to /forgot-Password with the old client's message. */
export async function resetPageLoader(token: string) {
  if (!(await passwordLinkIsValid(token))) throw await redirectWithError('/forgot-Password', TOKEN_EXPIRED)
  return json(null)
}

export async function resetPageAction(request: Request, token: string) {
  const submission = parseWithZod(await readForm(request), { schema: NewPasswordSchema })
  if (submission.status !== 'success') return invalidForm(submission, { hideFields: ['password', 'confirmPassword'] })
  try {
    await resetPassword(token, submission.value)
  } catch (error) {
    if (isServiceError(error)) return redirectWithError('/forgot-Password', TOKEN_EXPIRED)
    throw error
  }
  return redirectWithSuccess('/sign-in', 'Your password is set. Sign in with it now.')
}
