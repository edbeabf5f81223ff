import { afterEach, describe, expect, it, vi } from 'vitest'
import { resetPassword } from '#app/modules/auth/password-links.server.ts'
import { login } from '#app/modules/auth/service.server.ts'
import { conflict, invalid } from '#app/modules/errors.ts'
import * as forgotPage from '#app/routes/_auth+/forgot-Password.tsx'
import * as resetPage from '#app/routes/_auth+/reset-Password.$token.tsx'
import * as resetByQueryPage from '#app/routes/_auth+/reset-password.tsx'
import { getEnv } from '#app/utils/env.server.ts'
import { makeLearner } from '#tests/factories.ts'
import { resetTokenIn, waitForMail } from '#tests/outbox.ts'
import { renderRoute, type RouteModule } from '#tests/render.tsx'
import { call } from '#tests/requests.ts'
import { toastOf } from '#tests/sessions.ts'

// The reset page tells an unusable link (unknown, used, expired: "Token Expired, …", on /forgot-Password)
// from every other refusal of the reset, which it shows on the form as what it is. The reset service is
// the real one on the real database; a test that needs a refusal the service has no way to provoke
// today has it refuse once, in place of the real call.

vi.mock(import('#app/modules/auth/password-links.server.ts'), async (real) => {
  const module = await real()
  return { ...module, resetPassword: vi.fn(module.resetPassword) }
})

afterEach(() => {
  vi.mocked(resetPassword).mockReset()
})

const TOKEN_EXPIRED = 'Token Expired, Please enter your email id to verify again.'
const PASSWORD_RULE = 'min 8 char with 1 lower, upper, number & symbol'
const NEW_PASSWORD = 'Mail-link1!'

async function mailedToken(email: string) {
  await call(forgotPage.action as never, '/forgot-Password', { method: 'POST', body: new URLSearchParams({ email }) })
  return resetTokenIn(await waitForMail(getEnv().DATA_DIR, { to: email, subject: /^Reset your/ }))
}

/** The reset page after its form was sent with the new password twice, as a browser without JavaScript shows it. */
const sentForm = (token: string) =>
  renderRoute(resetPage as RouteModule, `/reset-Password/${token}`, {
    pattern: '/reset-Password/:token',
    form: [
      ['password', NEW_PASSWORD],
      ['confirmPassword', NEW_PASSWORD],
    ],
  })

describe('the reset page', () => {
  it('shows a refusal of the new password beside the field, not as an expired link, and the link still works', async () => {
    const learner = await makeLearner()
    const token = await mailedToken(learner.email)
    vi.mocked(resetPassword).mockRejectedValueOnce(invalid(PASSWORD_RULE, { password: PASSWORD_RULE }))

    const page = await sentForm(token)
    expect(page.getByLabelText('New Password')).toHaveAccessibleDescription(PASSWORD_RULE)
    expect(page.queryByText(TOKEN_EXPIRED)).toBeNull()

    // nothing was used up: the same link sets the password
    const done = await call(resetPage.action as never, `/reset-Password/${token}`, {
      method: 'POST',
      params: { token },
      body: new URLSearchParams({ password: NEW_PASSWORD, confirmPassword: NEW_PASSWORD }),
    })
    expect(done.headers.get('Location')).toBe('/sign-in')
    expect((await login({ email: learner.email, password: NEW_PASSWORD })).user.id).toBe(learner.id)
  })

  it('shows a refusal of the server above the form with its own status, on both spellings of the page', async () => {
    const learner = await makeLearner()
    const token = await mailedToken(learner.email)
    const refusal = 'The account is being changed by someone else; try again in a moment.'
    vi.mocked(resetPassword).mockRejectedValue(conflict(refusal))

    const page = await sentForm(token)
    expect(page.getByRole('alert')).toHaveTextContent(refusal)
    expect(page.queryByText(TOKEN_EXPIRED)).toBeNull()

    const body = new URLSearchParams({ password: NEW_PASSWORD, confirmPassword: NEW_PASSWORD })
    for (const answer of [
      await call(resetPage.action as never, `/reset-Password/${token}`, { method: 'POST', params: { token }, body }),
      await call(resetByQueryPage.action as never, `/reset-password?token=${token}`, { method: 'POST', body }),
    ]) {
      expect(answer.status).toBe(409)
      expect(answer.headers.get('Location')).toBeNull()
      expect(await answer.json()).toMatchObject({ result: { error: { '': [refusal] } } })
    }
  })

  it('sends a used or unknown link to /forgot-Password with the old client’s message, from the form too', async () => {
    const learner = await makeLearner()
    const token = await mailedToken(learner.email)
    const body = new URLSearchParams({ password: NEW_PASSWORD, confirmPassword: NEW_PASSWORD })
    const first = await call(resetPage.action as never, `/reset-Password/${token}`, {
      method: 'POST',
      params: { token },
      body,
    })
    expect(first.headers.get('Location')).toBe('/sign-in')

    for (const again of [
      await call(resetPage.action as never, `/reset-Password/${token}`, { method: 'POST', params: { token }, body }),
      await call(resetByQueryPage.action as never, '/reset-password?token=not-a-token', { method: 'POST', body }),
    ]) {
      expect(again.headers.get('Location')).toBe('/forgot-Password')
      expect(await toastOf(again)).toMatchObject({ type: 'error', message: TOKEN_EXPIRED })
    }
  })
})
