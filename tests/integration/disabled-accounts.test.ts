import { randomUUID } from 'node:crypto'
import { within } from '@testing-library/dom'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { assignCourse } from '#app/modules/assignments/service.server.ts'
import {
  createPasswordLink,
  passwordLinkIsValid,
  requestPasswordReset,
  resetPassword,
  TOKEN_EXPIRED,
} from '#app/modules/auth/password-links.server.ts'
import { ROLE, SYSTEM } from '#app/modules/auth/roles.ts'
import { ACCOUNT_DISABLED, FORGOT_PASSWORD_ANSWER, WRONG_CREDENTIALS } from '#app/modules/auth/schema.ts'
import { login, userFromToken } from '#app/modules/auth/service.server.ts'
import { BRIDGE_REFUSED } from '#app/modules/bridge/schema.ts'
import { mintBridgeLink, signBridgeToken } from '#app/modules/bridge/service.server.ts'
import { runReminderSweep } from '#app/modules/deadlines/sweep.server.ts'
import { enqueueInvitation, sendQueuedMail } from '#app/modules/mail/queue.server.ts'
import {
  DISABLE_ADMIN_DENIED,
  DISABLE_DENIED,
  DISABLE_SELF_DENIED,
  disableUser,
  enableUser,
  getProfile,
  listUsers,
} from '#app/modules/users/service.server.ts'
import { loader as bridgeLoader } from '#app/routes/_auth+/ibridge.$ilearn.($courseId).tsx'
import { action as signInAction } from '#app/routes/_auth+/sign-in.tsx'
import * as userDetails from '#app/routes/admin+/user.$userId.tsx'
import * as usersList from '#app/routes/admin+/users.tsx'
import { action as checkCourseAction } from '#app/routes/api+/ibridge.checkIbridgeCourses.ts'
import { action as loginAction } from '#app/routes/api+/user.login.ts'
import { loader as profileLoader } from '#app/routes/api+/user.profile.ts'
import { loader as usersListApi } from '#app/routes/api+/user.usersList.user.ts'
import { getEnv } from '#app/utils/env.server.ts'
import { select } from '#db/client.ts'
import { migrateTables } from '#db/migrate.ts'
import { down as migrateDown } from '#db/migrations/0026-disabled-accounts.ts'
import { portal } from '#tests/cli.ts'
import { makeAdmin, makeCoach, makeCourse, makeLearner, makeSuperAdmin, makeUser, PASSWORD } from '#tests/factories.ts'
import { tryOf } from '#tests/jobs.ts'
import { databaseAt } from '#tests/old-shape.ts'
import { readOutbox, waitForMail } from '#tests/outbox.ts'
import { postedBy, renderRoute } from '#tests/render.tsx'
import { body, call } from '#tests/requests.ts'
import { sessionCookieFor, toastOf } from '#tests/sessions.ts'

// Disabled accounts (docs/product.md#disabled-accounts) on a real database: who may disable whom, that a disabled
// account is refused every way in (password, an existing session or token, a bridge link, a reset link) while a
// wrong password stays the usual 401, the User Details page's forms, the lists' badge and `portal users disable`.

type Event = { outcome: string }
const eventsOf = (userId: string) =>
  select<Event>('SELECT outcome FROM sign_in_events WHERE user_id = $1 ORDER BY id', [userId])
const disabledAtOf = async (userId: string) =>
  (
    await select<{ disabled_at: Date | null; disabled_by: string | null }>(
      'SELECT disabled_at, disabled_by FROM users WHERE id = $1',
      [userId],
    )
  )[0]

describe('disableUser and enableUser', () => {
  it('let admins disable and enable learners and coaches, recording when and by whom', async () => {
    const admin = await makeAdmin()
    for (const account of [await makeLearner(), await makeCoach()]) {
      const before = Date.now()
      const done = await disableUser(admin, account.id)
      expect(done).toMatchObject({ id: account.id, userName: account.userName, changed: true })
      expect(new Date(done.disabledAt!).getTime()).toBeGreaterThanOrEqual(before - 1000)
      expect(await disabledAtOf(account.id)).toMatchObject({ disabled_by: admin.id })
      // again: nothing changes, not even when
      expect(await disableUser(admin, account.id)).toMatchObject({ changed: false, disabledAt: done.disabledAt })

      expect(await enableUser(admin, account.id)).toMatchObject({ changed: true, disabledAt: null })
      expect(await disabledAtOf(account.id)).toEqual({ disabled_at: null, disabled_by: null })
      expect(await enableUser(admin, account.id)).toMatchObject({ changed: false, disabledAt: null })
    }
  })

  it('let only the super admin disable admins and super admins; an operator may too, recorded by nobody', async () => {
    const [admin, otherAdmin, superAdmin, otherSuper] = [
      await makeAdmin(),
      await makeAdmin(),
      await makeSuperAdmin(),
      await makeSuperAdmin(),
    ]
    await expect(disableUser(admin, superAdmin.id)).rejects.toMatchObject({
      status: 403,
      message: DISABLE_ADMIN_DENIED,
    })
    await expect(disableUser(admin, otherAdmin.id)).rejects.toMatchObject({
      status: 403,
      message: DISABLE_ADMIN_DENIED,
    })
    expect(await disabledAtOf(superAdmin.id)).toMatchObject({ disabled_at: null })

    expect(await disableUser(superAdmin, otherAdmin.id)).toMatchObject({ changed: true })
    expect(await disableUser(superAdmin, otherSuper.id)).toMatchObject({ changed: true })
    await expect(enableUser(admin, otherAdmin.id)).rejects.toMatchObject({ status: 403, message: DISABLE_ADMIN_DENIED })
    expect(await enableUser(SYSTEM, otherSuper.id)).toMatchObject({ changed: true })
    expect(await disableUser(SYSTEM, otherSuper.id)).toMatchObject({ changed: true })
    expect(await disabledAtOf(otherSuper.id)).toMatchObject({ disabled_by: null })
  })

  it('refuse anyone their own account, coaches and learners anything, and answer 404 for nobody', async () => {
    const [admin, superAdmin, coach, learner] = [
      await makeAdmin(),
      await makeSuperAdmin(),
      await makeCoach(),
      await makeLearner(),
    ]
    for (const self of [admin, superAdmin])
      await expect(disableUser(self, self.id)).rejects.toMatchObject({ status: 403, message: DISABLE_SELF_DENIED })
    for (const actor of [coach, learner]) {
      await expect(disableUser(actor, learner.id)).rejects.toMatchObject({ status: 403, message: DISABLE_DENIED })
      await expect(enableUser(actor, learner.id)).rejects.toMatchObject({ status: 403, message: DISABLE_DENIED })
    }
    await expect(disableUser(coach, coach.id)).rejects.toMatchObject({ status: 403 })
    for (const id of [randomUUID(), 'not-an-id'])
      await expect(disableUser(admin, id)).rejects.toMatchObject({ status: 404, message: 'User not found.' })
    for (const account of [admin, superAdmin, coach, learner])
      expect(await disabledAtOf(account.id)).toMatchObject({ disabled_at: null })
  })
})

describe('a disabled account signing in', () => {
  it('is refused with 403 for the right password and 401 for a wrong one, each recorded', async () => {
    const learner = await makeLearner()
    await disableUser(SYSTEM, learner.id)

    await expect(login({ email: learner.userName, password: PASSWORD })).rejects.toMatchObject({
      status: 403,
      message: ACCOUNT_DISABLED,
    })
    await expect(login({ email: learner.email, password: 'Wrong-pass1!' })).rejects.toMatchObject({
      status: 401,
      message: WRONG_CREDENTIALS,
    })
    expect(await eventsOf(learner.id)).toEqual([{ outcome: 'disabled' }, { outcome: 'wrong_password' }])

    // the same through the /api and the sign-in page
    const api = await call(loginAction, '/api/user/login', {
      method: 'POST',
      json: { email: learner.email, password: PASSWORD },
    })
    expect(api.status).toBe(403)
    expect(await body(api)).toEqual({ message: ACCOUNT_DISABLED })
    const wrong = await call(loginAction, '/api/user/login', {
      method: 'POST',
      json: { email: learner.email, password: 'Wrong-pass1!' },
    })
    expect(wrong.status).toBe(401)
    expect(await body(wrong)).toEqual({ message: WRONG_CREDENTIALS })

    const page = await call(signInAction, '/sign-in', {
      method: 'POST',
      body: new URLSearchParams({ email: learner.email, password: PASSWORD, redirectTo: '' }),
    })
    expect(page.status).toBe(403)
    expect(page.headers.getSetCookie().some((c) => c.startsWith('__portal_session='))).toBe(false)
    expect(await toastOf(page)).toMatchObject({ type: 'error', message: ACCOUNT_DISABLED })

    // enabled again, the same password signs in
    await enableUser(SYSTEM, learner.id)
    const { user } = await login({ email: learner.email, password: PASSWORD })
    expect(user.id).toBe(learner.id)
    expect((await eventsOf(learner.id)).at(-1)).toEqual({ outcome: 'success' })
  })

  it('ends every session and API token the account had at once', async () => {
    const learner = await makeLearner()
    const cookie = await sessionCookieFor(learner.userName)
    const { token } = await login({ email: learner.email, password: PASSWORD })
    expect(await userFromToken(token)).toMatchObject({ id: learner.id })
    expect((await call(profileLoader, '/api/user/profile', { token: learner.token })).status).toBe(200)

    await disableUser(await makeAdmin(), learner.id)
    expect(await userFromToken(token)).toBeUndefined()
    expect((await call(profileLoader, '/api/user/profile', { token: learner.token })).status).toBe(401)
    const pageSession = await call(profileLoader, '/api/user/profile', { headers: { Cookie: cookie } })
    expect(pageSession.status).toBe(401)

    // enabling does not bring the old sessions back
    await enableUser(SYSTEM, learner.id)
    expect(await userFromToken(token)).toBeUndefined()
    expect((await call(profileLoader, '/api/user/profile', { headers: { Cookie: cookie } })).status).toBe(401)
  })

  it('is never the user of a token, even one of its current token version', async () => {
    const learner = await makeLearner()
    await select('UPDATE users SET disabled_at = now() WHERE id = $1 RETURNING id', [learner.id])
    expect(await userFromToken(learner.token)).toBeUndefined()
    await select('UPDATE users SET disabled_at = NULL WHERE id = $1 RETURNING id', [learner.id])
    expect(await userFromToken(learner.token)).toMatchObject({ id: learner.id })
  })
})

describe('a bridge link for a disabled account', () => {
  it('is refused with the bridge’s error page, signs nobody in and is not spent', async () => {
    const learner = await makeLearner()
    const course = await makeCourse()
    await assignCourse(SYSTEM, { userId: learner.id, courseId: course.id })
    await disableUser(SYSTEM, learner.id)
    const token = await signBridgeToken({ sub: learner.email })

    const page = await call(bridgeLoader, `/ibridge/${token}/${course.id}`, {
      params: { ilearn: token, courseId: course.id },
    })
    expect(page.status).toBe(403)
    expect(page.headers.getSetCookie().some((c) => c.startsWith('__portal_session='))).toBe(false)
    expect(await body(page)).toEqual({ message: BRIDGE_REFUSED.disabled })
    expect(BRIDGE_REFUSED.disabled).toBe(ACCOUNT_DISABLED)

    const api = await call(checkCourseAction, '/api/ibridge/checkIbridgeCourses', {
      method: 'POST',
      json: { ilearn: token, courseId: course.id },
    })
    expect(api.status).toBe(403)
    expect(await body(api)).toEqual({ message: ACCOUNT_DISABLED })
    await expect(mintBridgeLink({ user: learner.email, target: { kind: 'program' } })).rejects.toThrow(ACCOUNT_DISABLED)

    // the refusal did not spend the link: enabled again, the same link signs the learner in
    await enableUser(SYSTEM, learner.id)
    const opened = await call(bridgeLoader, `/ibridge/${token}/${course.id}`, {
      params: { ilearn: token, courseId: course.id },
    })
    expect(opened.headers.get('Location')).toBe(`/course/${course.id}`)
  })
})

describe('password links of a disabled account', () => {
  it('sends no reset mail, with the same answer as always', async () => {
    const [disabled, enabled] = [await makeLearner(), await makeLearner()]
    await disableUser(SYSTEM, disabled.id)
    expect(await requestPasswordReset(disabled.email)).toEqual({ message: FORGOT_PASSWORD_ANSWER })
    expect(await requestPasswordReset(disabled.userName)).toEqual({ message: FORGOT_PASSWORD_ANSWER })
    expect(await requestPasswordReset(enabled.email)).toEqual({ message: FORGOT_PASSWORD_ANSWER })
    // the enabled account's mail, asked for after the disabled one's, arrives; the disabled one's never does
    await waitForMail(getEnv().DATA_DIR, { to: enabled.email, subject: /password/i })
    const toDisabled = (await readOutbox(getEnv().DATA_DIR)).filter((m) =>
      JSON.stringify(m.to).includes(disabled.email),
    )
    expect(toDisabled).toEqual([])
    expect(await select('SELECT id FROM password_reset_tokens WHERE user_id = $1', [disabled.id])).toEqual([])
  })

  it('uses up the links sent before, and a link sent meanwhile sets no password', async () => {
    const learner = await makeLearner()
    const before = await createPasswordLink(learner.id, 'reset')
    expect(await passwordLinkIsValid(before)).toBe(true)
    await disableUser(SYSTEM, learner.id)
    expect(await passwordLinkIsValid(before)).toBe(false)

    // one made after (a race with the form): the reset is refused as an unusable link, the password stays
    const meanwhile = await createPasswordLink(learner.id, 'reset')
    const password = { password: 'Another-pass1!', confirmPassword: 'Another-pass1!' }
    await expect(resetPassword(meanwhile, password)).rejects.toMatchObject({ status: 400, message: TOKEN_EXPIRED })
    await enableUser(SYSTEM, learner.id)
    expect((await login({ email: learner.email, password: PASSWORD })).user.id).toBe(learner.id)
  })

  it('cancels an invitation queued before the account was disabled', async () => {
    const coach = await makeUser({ roleId: ROLE.coach })
    await select('UPDATE users SET password_hash = NULL WHERE id = $1 RETURNING id', [coach.id])
    await enqueueInvitation(coach.id)
    await disableUser(SYSTEM, coach.id)
    const [mail] = await select<{ id: string }>('SELECT id FROM mail_queue WHERE user_id = $1', [coach.id])
    await sendQueuedMail(tryOf(mail.id))
    expect(await select('SELECT status, last_error FROM mail_queue WHERE id = $1', [mail.id])).toEqual([
      { status: 'cancelled', last_error: 'The account is disabled.' },
    ])
    const toCoach = (await readOutbox(getEnv().DATA_DIR)).filter((m) => JSON.stringify(m.to).includes(coach.email))
    expect(toCoach).toEqual([])
  })
})

describe('reminders for a disabled learner', () => {
  it('are not queued by the sweep, and one queued before is not sent', async () => {
    const [disabled, enabled, later] = [await makeLearner(), await makeLearner(), await makeLearner()]
    const course = await makeCourse({ videos: [{}] })
    const plan = { before: [1], after: [] }
    for (const learner of [disabled, enabled, later])
      await assignCourse(SYSTEM, { userId: learner.id, courseId: course.id, dueDate: '2031-03-15', reminderPlan: plan })
    await disableUser(SYSTEM, disabled.id)

    const swept = await runReminderSweep({ now: new Date('2031-03-14T09:00:00Z') })
    const remindedIds = swept.reminders.map((r) => r.userId)
    expect(remindedIds).toContain(enabled.id)
    expect(remindedIds).toContain(later.id)
    expect(remindedIds).not.toContain(disabled.id)

    // the reminder of a learner disabled after the sweep queued it
    await disableUser(SYSTEM, later.id)
    const [mail] = await select<{ id: string }>("SELECT id FROM mail_queue WHERE user_id = $1 AND kind = 'reminder'", [
      later.id,
    ])
    await sendQueuedMail(tryOf(mail.id), { now: () => new Date('2031-03-14T09:05:00Z'), wait: async () => {} })
    expect(await select('SELECT status, last_error FROM mail_queue WHERE id = $1', [mail.id])).toEqual([
      { status: 'cancelled', last_error: 'The account is disabled.' },
    ])
  })
})

describe('the User Details page', () => {
  const page = (userId: string) => `/admin/user/${userId}`
  const render = (userId: string, cookie: string, search = '') =>
    renderRoute(userDetails as never, `${page(userId)}${search}`, { cookie, pattern: '/admin/user/:userId' })
  const post = (userId: string, cookie: string, fields: [string, string][]) =>
    call(userDetails.action as never, page(userId), {
      method: 'POST',
      headers: { Cookie: cookie },
      body: new URLSearchParams(fields),
      params: { userId },
    })

  it('disables after asking, without JavaScript, then shows since when and enables again', async () => {
    const adminUser = await makeAdmin()
    const admin = await sessionCookieFor(adminUser.userName)
    const learner = await makeLearner()
    const learnerCookie = await sessionCookieFor(learner.userName)

    const shown = await render(learner.id, admin)
    expect(shown.getByText('Status').nextElementSibling?.textContent).toBe('Active')
    const ask = shown.getByRole('link', { name: `Disable ${learner.userName}` })
    expect(ask.getAttribute('href')).toBe(`${page(learner.id)}?disable=1`)

    // the question, as a page without JavaScript shows it: a card with the form
    const asking = await render(learner.id, admin, '?disable=1')
    const dialog = asking.getByRole('region', { name: 'Disable account' })
    expect(dialog.textContent).toContain(`Disable ${learner.firstName} ${learner.lastName} (${learner.userName})?`)
    const form = within(dialog).getByRole('button', { name: 'Disable account' }).closest('form')
    expect(form?.getAttribute('method')).toBe('post')
    expect(within(dialog).getByRole('link', { name: 'Cancel' }).getAttribute('href')).toBe(page(learner.id))

    const disabled = await post(learner.id, admin, postedBy(form))
    expect(disabled.headers.get('Location')).toBe(page(learner.id))
    expect(await toastOf(disabled)).toMatchObject({
      type: 'success',
      message: `${learner.userName} is disabled and signed out everywhere.`,
    })
    expect((await call(profileLoader, '/api/user/profile', { headers: { Cookie: learnerCookie } })).status).toBe(401)

    const after = await render(learner.id, admin)
    const section = after.getByRole('region', { name: 'Account disabled' })
    expect(section.textContent).toMatch(new RegExp(`Disabled since .* UTC by ${adminUser.userName}\\.`))
    expect(within(section).getByRole('time').getAttribute('datetime')).toMatch(/^\d{4}-\d\d-\d\dT/)
    expect(after.getByText('Status').nextElementSibling?.textContent).toBe('Disabled')
    expect(after.queryByRole('link', { name: `Disable ${learner.userName}` })).toBeNull()
    const enable = within(section).getByRole('button', { name: 'Enable account' }).closest('form')

    const enabled = await post(learner.id, admin, postedBy(enable))
    expect(await toastOf(enabled)).toMatchObject({ message: `${learner.userName} is enabled and can sign in again.` })
    expect((await login({ email: learner.email, password: PASSWORD })).user.id).toBe(learner.id)
    expect((await render(learner.id, admin)).queryByRole('region', { name: 'Account disabled' })).toBeNull()
  })

  it('offers nothing to coaches, on one’s own page or an admin’s page for an admin, and refuses their posts', async () => {
    const [adminUser, coachUser, superAdmin, learner] = [
      await makeAdmin(),
      await makeCoach(),
      await makeSuperAdmin(),
      await makeLearner(),
    ]
    const [admin, coach] = [await sessionCookieFor(adminUser.userName), await sessionCookieFor(coachUser.userName)]
    const disableLinks = (page: Awaited<ReturnType<typeof render>>) =>
      page.queryAllByRole('link', { name: /^Disable / })

    expect(disableLinks(await render(learner.id, coach))).toEqual([])
    expect(disableLinks(await render(adminUser.id, admin))).toEqual([])
    expect(disableLinks(await render(superAdmin.id, admin))).toEqual([])

    const byCoach = await post(learner.id, coach, [['intent', 'disable']])
    expect(byCoach.headers.get('Location')).toBe(page(learner.id))
    expect(await toastOf(byCoach)).toMatchObject({ type: 'error', message: 'Only admins can manage people.' })
    const onSuper = await post(superAdmin.id, admin, [['intent', 'disable']])
    expect(onSuper.status).toBe(403)
    expect(await body(onSuper)).toEqual({ message: DISABLE_ADMIN_DENIED })
    const onSelf = await post(adminUser.id, admin, [['intent', 'disable']])
    expect(onSelf.status).toBe(403)
    expect(await body(onSelf)).toEqual({ message: DISABLE_SELF_DENIED })
    for (const account of [learner, superAdmin, adminUser])
      expect(await disabledAtOf(account.id)).toMatchObject({ disabled_at: null })
  })
})

describe('the people lists', () => {
  it('show a disabled account with a "Disabled" badge in its row, and the /api says disabled', async () => {
    const admin = await makeAdmin()
    const [disabled, enabled] = [
      await makeUser({ firstName: 'Dora' + randomUUID().slice(0, 6) }),
      await makeUser({ firstName: 'Enid' + randomUUID().slice(0, 6) }),
    ]
    await disableUser(admin, disabled.id)

    const list = await renderRoute(usersList as never, `/admin/users?size=21&q=`, {
      cookie: await sessionCookieFor(admin.userName),
    })
    const rowOf = (firstName: string) => list.getByRole('link', { name: new RegExp(`^${firstName}`) }).closest('tr')!
    expect(within(rowOf(disabled.firstName)).getByText('Disabled')).toBeTruthy()
    expect(within(rowOf(enabled.firstName)).queryByText('Disabled')).toBeNull()

    const { rows } = await listUsers(admin, 'learner', { limit: 100 })
    expect(rows.find((r) => r._id === disabled.id)).toMatchObject({ disabled: true })
    expect(rows.find((r) => r._id === enabled.id)).toMatchObject({ disabled: false })
    expect(await getProfile(admin, disabled.id)).toMatchObject({ disabled: true })

    const streamed = await call(usersListApi, '/api/user/usersList/user', { token: admin.token })
    const { message } = await body<{ message: { _id: string; disabled: boolean }[] }>(streamed)
    expect(message.find((r) => r._id === disabled.id)).toMatchObject({ disabled: true })
    expect(message.find((r) => r._id === enabled.id)).toMatchObject({ disabled: false })
  })
})

// each command is a child process starting Node and tsx: a test of several needs more than the default time
const SLOW = { timeout: 180_000 }

describe('portal users disable and enable', () => {
  it('disable and enable by email or username, as JSON with --json, and exit 1 or 2 when refused', SLOW, async () => {
    const learner = await makeLearner()
    const { token } = await login({ email: learner.email, password: PASSWORD })

    const disabled = await portal(['users', 'disable', learner.email])
    expect(disabled).toMatchObject({ code: 0, stdout: '' })
    expect(disabled.stderr).toBe(`Disabled ${learner.userName} <${learner.email}>.\n`)
    expect(await disabledAtOf(learner.id)).toMatchObject({ disabled_at: expect.any(Date), disabled_by: null })
    expect(await userFromToken(token)).toBeUndefined()

    const again = await portal(['users', 'disable', learner.userName, '--json'])
    expect(again).toMatchObject({ code: 0, stderr: '' })
    expect(JSON.parse(again.stdout)).toEqual({
      id: learner.id,
      userName: learner.userName,
      email: learner.email,
      disabled: true,
      disabledAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT.*Z$/),
      changed: false,
    })

    const enabled = await portal(['users', 'enable', learner.userName, '--json'])
    expect(enabled.code).toBe(0)
    expect(JSON.parse(enabled.stdout)).toMatchObject({
      id: learner.id,
      disabled: false,
      disabledAt: null,
      changed: true,
    })
    expect((await login({ email: learner.email, password: PASSWORD })).user.id).toBe(learner.id)

    const nobody = await portal(['users', 'disable', 'nobody@example.com'])
    expect(nobody).toMatchObject({ code: 1, stdout: '' })
    expect(nobody.stderr).toContain('portal: No user with the id, email or username "nobody@example.com".')
    const missing = await portal(['users', 'enable'])
    expect(missing.code).toBe(2)
    expect(missing.stderr).toContain("missing required argument 'account'")
    const blank = await portal(['users', 'disable', ' '])
    expect(blank).toMatchObject({ code: 2 })
    expect(blank.stderr).toContain('portal: name the account: its email or username.')
  })
})

describe('migration 0026', () => {
  let database: Awaited<ReturnType<typeof databaseAt>>
  beforeAll(async () => {
    database = await databaseAt('0025-export-kinds')
  }, 60_000)
  afterAll(async () => {
    await database?.drop()
  })

  it('adds who disabled an account and when, and the outcome disabled; taken down, they go', async () => {
    const { rows } = database
    const insertUser = async (name: string) =>
      (
        await rows<{ id: string }>(
          `INSERT INTO users (first_name, user_name, email, role_id) VALUES ($1::text, $1::text, $1::text || '@example.com', 3) RETURNING id`,
          [name],
        )
      )[0].id
    const [admin, learner] = [await insertUser('admin'), await insertUser('learner')]
    const disabledEvent = `INSERT INTO sign_in_events (account, user_id, outcome) VALUES ('x', $1, 'disabled') RETURNING id`
    await expect(rows(disabledEvent, [learner])).rejects.toThrow(/sign_in_events_outcome_check/)

    await migrateTables(database.sequelize, () => {}, '0026-disabled-accounts')
    expect(await rows('SELECT disabled_at, disabled_by FROM users WHERE id = $1', [learner])).toEqual([
      { disabled_at: null, disabled_by: null },
    ])
    await rows('UPDATE users SET disabled_at = now(), disabled_by = $2 WHERE id = $1 RETURNING id', [learner, admin])
    await rows(disabledEvent, [learner])
    // who is kept only with when
    await expect(rows('UPDATE users SET disabled_at = NULL WHERE id = $1 RETURNING id', [learner])).rejects.toThrow(
      /users_disabled_by_check/,
    )
    // the admin's account deleted: the learner stays disabled, by nobody known
    await rows('DELETE FROM users WHERE id = $1 RETURNING id', [admin])
    expect(
      await rows('SELECT disabled_at IS NOT NULL AS disabled, disabled_by FROM users WHERE id = $1', [learner]),
    ).toEqual([{ disabled: true, disabled_by: null }])

    await migrateDown({ name: '0026-disabled-accounts', context: (text: string) => database.sequelize.query(text) })
    expect(await rows("SELECT id FROM sign_in_events WHERE outcome = 'disabled'")).toEqual([])
    expect(
      await rows(
        "SELECT column_name FROM information_schema.columns WHERE table_name = 'users' AND column_name LIKE 'disabled%'",
      ),
    ).toEqual([])
    await expect(rows(disabledEvent, [learner])).rejects.toThrow(/sign_in_events_outcome_check/)
  })
})
