import { createHash } from 'node:crypto'
import { QueryTypes } from 'sequelize'
import { describe, expect, it } from 'vitest'
import { FORGOT_PASSWORD_ANSWER, TOKEN_EXPIRED } from '#app/modules/auth/password-links.server.ts'
import { login } from '#app/modules/auth/service.server.ts'
import * as assignCourseRoute from '#app/routes/api+/category.assignCourse.$userId.ts'
import * as assignProgramRoute from '#app/routes/api+/program.assignProgram.ts'
import * as coachRoute from '#app/routes/api+/user.coach.ts'
import * as forgotRoute from '#app/routes/api+/user.forgotPassword.ts'
import * as profileRoute from '#app/routes/api+/user.profile.ts'
import * as profileOfRoute from '#app/routes/api+/user.profile_.$userId.ts'
import * as registerRoute from '#app/routes/api+/user.register.ts'
import * as resetRoute from '#app/routes/api+/user.resetPassword.$token.ts'
import * as adminListRoute from '#app/routes/api+/user.usersList.admin.ts'
import * as userListRoute from '#app/routes/api+/user.usersList.user.ts'
import { getEnv } from '#app/utils/env.server.ts'
import { db, sequelize } from '#db/client.ts'
import {
  makeAdmin,
  makeCoach,
  makeCourse,
  makeLearner,
  makeProgram,
  makeSuperAdmin,
  makeUser,
  PASSWORD,
  personFields,
} from '#tests/factories.ts'
import { readOutbox, resetTokenIn, waitForMail } from '#tests/outbox.ts'
import { body, call } from '#tests/requests.ts'

// The /api's calls on people (sign-up, lists, profiles, password recovery, coaches, assignments) and who
// may make them, for each role: anonymous, learner A, learner B, coach, admin, super admin.

const post = (route: { action: unknown }, json: unknown, token?: string, params: Record<string, string> = {}) =>
  call(route.action as never, '/x', { method: 'POST', json, token, params })
const get = (route: { loader: unknown }, path: string, token?: string, params: Record<string, string> = {}) =>
  call(route.loader as never, path, { token, params })

const outbox = () => readOutbox(getEnv().DATA_DIR)
const RESET = /^Reset your .* password$/
const INVITE = /set your password$/
/** The newest of `count` mails to `to` with this subject, waiting for it: reset mails are sent after answering. */
const mailTo = (to: string, subject: RegExp, count = 1) => waitForMail(getEnv().DATA_DIR, { to, subject, count })
/** How long the user's newest link of this purpose lasts, in seconds, as stored. */
async function linkLifetimeSeconds(userId: string, purpose: 'reset' | 'invite') {
  const [row] = await (
    await sequelize()
  ).query<{ seconds: number }>(
    `SELECT EXTRACT(EPOCH FROM expires_at - created_at)::float AS seconds FROM password_reset_tokens
      WHERE user_id = :userId AND purpose = :purpose ORDER BY created_at DESC LIMIT 1`,
    { replacements: { userId, purpose }, type: QueryTypes.SELECT },
  )
  return row.seconds
}

describe('POST /api/user/register', () => {
  it('lets admins create learners, only the super admin admins, and nobody else anything', async () => {
    expect((await post(registerRoute, personFields())).status).toBe(401)
    expect((await post(registerRoute, personFields(), (await makeLearner()).token)).status).toBe(403)
    expect((await post(registerRoute, personFields(), (await makeCoach()).token)).status).toBe(403)
    const admin = await makeAdmin()
    const created = await post(registerRoute, personFields({ role: 'learner' }), admin.token)
    expect(created.status).toBe(200)
    expect(await body(created)).toMatchObject({ user: { roleId: 2 } })
    expect((await post(registerRoute, personFields({ role: 'admin' }), admin.token)).status).toBe(403)
    const superAdmin = await makeSuperAdmin()
    expect(await body(await post(registerRoute, personFields({ role: 'admin' }), superAdmin.token))).toMatchObject({
      user: { roleId: 3 },
    })
    // registration makes learners and admins only: no super admin, and coaches through their own call
    for (const role of ['superadmin', 'coach']) {
      const data = personFields({ role })
      const refused = await post(registerRoute, data, superAdmin.token)
      expect(refused.status).toBe(400)
      expect(await body(refused)).toMatchObject({ errors: { role: 'Role must be learner or admin.' } })
      expect(await (await db()).User.findOne({ where: { userName: data.userName } })).toBeNull()
    }
  })

  it('sends the new user an invitation whose link sets a password', async () => {
    const data = personFields()
    await post(registerRoute, data, (await makeAdmin()).token)
    const mail = await mailTo(data.email, INVITE)
    const token = resetTokenIn(mail)
    expect(mail.text).toContain(`http://portal.test/reset-Password/${token}`)
    const { User } = await db()
    const invited = await User.findOne({ where: { userName: data.userName } })
    // an invitation lasts 7 days
    expect(await linkLifetimeSeconds(invited?.id ?? '', 'invite')).toBeCloseTo(7 * 24 * 60 * 60, 0)
    const reset = await post(
      resetRoute,
      { newPassword: 'Chosen-pass9!', confirmPassword: 'Chosen-pass9!' },
      undefined,
      {
        token,
      },
    )
    expect(reset.status).toBe(200)
    expect((await login({ email: data.userName, password: 'Chosen-pass9!' })).user.email).toBe(data.email)
  })

  it('answers duplicates with 409 and the old client’s email / userName fields, and invalid input with firstName', async () => {
    const admin = await makeAdmin()
    const first = personFields()
    await post(registerRoute, first, admin.token)
    const email = await post(registerRoute, personFields({ email: first.email.toUpperCase() }), admin.token)
    expect(email.status).toBe(409)
    expect(await body(email)).toEqual({
      message: 'Email already exists.',
      errors: { email: 'Email already exists.' },
      email: 'Email already exists.',
    })
    const userName = await post(registerRoute, personFields({ userName: first.userName }), admin.token)
    expect(await body(userName)).toMatchObject({ userName: 'UserName already exists.' })
    const invalid = await post(registerRoute, personFields({ firstName: 'Al' }), admin.token)
    expect(invalid.status).toBe(400)
    expect(await body(invalid)).toEqual({
      message: 'First Name must be at least 4 characters.',
      errors: { firstName: 'First Name must be at least 4 characters.' },
      firstName: 'First Name must be at least 4 characters.',
    })
  })
})

describe('GET /api/user/usersList/user and usersList/admin, GET /api/user/profile/{userId}', () => {
  it('list learners and admins to the admin side only, with search and paging', async () => {
    const tag = `Zed${Date.now() % 1e6}`
    for (let i = 0; i < 3; i++) await makeUser({ lastName: `${tag}` })
    const admin = await makeAdmin()
    const page = await body<{ message: { lastName: string; role: { r_id: number } }[]; total: number }>(
      await get(userListRoute, `/api/user/usersList/user?q=${tag.toLowerCase()}&page=1&size=2`, admin.token),
    )
    expect(page.total).toBe(3)
    expect(page.message).toHaveLength(2)
    expect(page.message.every((u) => u.role.r_id === 2)).toBe(true)
    const admins = await body<{ message: { role: { r_id: number } }[] }>(
      await get(adminListRoute, '/api/user/usersList/admin', (await makeCoach()).token),
    )
    expect(admins.message.every((u) => [1, 3].includes(u.role.r_id))).toBe(true)
    expect((await get(userListRoute, '/x', (await makeLearner()).token)).status).toBe(403)
    expect((await get(userListRoute, '/x')).status).toBe(401)
  })

  it('give a learner their own profile only; the admin side anyone’s', async () => {
    const [a, b] = [await makeLearner(), await makeLearner()]
    expect((await get(profileOfRoute, '/x', a.token, { userId: a.id })).status).toBe(200)
    expect((await get(profileOfRoute, '/x', a.token, { userId: b.id })).status).toBe(403)
    expect(await body(await get(profileOfRoute, '/x', (await makeCoach()).token, { userId: b.id }))).toMatchObject({
      message: { _id: b.id },
    })
    // a learner learns nothing from someone else's id, well-formed or not; the admin side is told it is unknown
    expect((await get(profileOfRoute, '/x', a.token, { userId: 'nope' })).status).toBe(403)
    expect((await get(profileOfRoute, '/x', (await makeCoach()).token, { userId: 'nope' })).status).toBe(404)
  })
})

describe('password recovery', () => {
  it('answers the same for known and unknown accounts, and mails only the known one a link from PUBLIC_URL', async () => {
    const learner = await makeLearner()
    const before = (await outbox()).length
    const known = await call(forgotRoute.action as never, '/x', {
      method: 'POST',
      json: { userNameOrEmail: learner.email },
      headers: { Host: 'evil.example' },
    })
    const unknown = await post(forgotRoute, { userNameOrEmail: 'nobody@example.com' })
    expect(await body(known)).toEqual({ message: FORGOT_PASSWORD_ANSWER })
    expect(await body(unknown)).toEqual({ message: FORGOT_PASSWORD_ANSWER })
    await mailTo(learner.email, RESET)
    const mails = (await outbox()).slice(before)
    expect(mails).toHaveLength(1)
    expect(mails[0].text).toMatch(/http:\/\/portal\.test\/reset-Password\/[A-Za-z0-9_-]{43}/)
    expect(mails[0].text).not.toContain('evil.example')
    expect((await post(forgotRoute, {})).status).toBe(400)
  })

  it('keeps only a hash of the token, uses it once, and signs every session out', async () => {
    const learner = await makeLearner()
    await post(forgotRoute, { userNameOrEmail: learner.userName })
    const token = resetTokenIn(await mailTo(learner.email, RESET))
    const [row] = await (
      await sequelize()
    ).query<{ token_hash: string }>('SELECT token_hash FROM password_reset_tokens WHERE user_id = :id', {
      replacements: { id: learner.id },
      type: QueryTypes.SELECT,
    })
    expect(row.token_hash).toBe(createHash('sha256').update(token).digest('hex'))
    expect(row.token_hash).not.toContain(token)
    // a reset link lasts one hour
    expect(await linkLifetimeSeconds(learner.id, 'reset')).toBeCloseTo(60 * 60, 0)

    const reset = (json: unknown) => post(resetRoute, json, undefined, { token })
    expect(await body(await reset({ newPassword: 'weak', confirmPassword: 'other' }))).toMatchObject({
      errors: {
        newPassword: 'min 8 char with 1 lower, upper, number & symbol',
        confirmPassword: 'Passwords must match',
      },
    })
    expect((await reset({ newPassword: 'Recovered-1!', confirmPassword: 'Recovered-1!' })).status).toBe(200)
    expect((await get(profileRoute, '/x', learner.token)).status).toBe(401)
    const again = await reset({ newPassword: 'Recovered-2!', confirmPassword: 'Recovered-2!' })
    expect(again.status).toBe(400)
    expect(await body(again)).toEqual({ message: TOKEN_EXPIRED })
    expect((await login({ email: learner.userName, password: 'Recovered-1!' })).user.id).toBe(learner.id)
  })

  it('refuses an expired link and a link replaced by a newer one', async () => {
    const learner = await makeLearner()
    await post(forgotRoute, { userNameOrEmail: learner.email })
    const older = resetTokenIn(await mailTo(learner.email, RESET))
    // a newer request (after the one-a-minute limit) cancels the older link
    await (
      await sequelize()
    ).query("UPDATE password_reset_tokens SET created_at = now() - interval '2 minutes' WHERE user_id = :id", {
      replacements: { id: learner.id },
    })
    await post(forgotRoute, { userNameOrEmail: learner.email })
    const newer = resetTokenIn(await mailTo(learner.email, RESET, 2))
    expect(newer).not.toBe(older)
    const payload = { newPassword: 'Recovered-1!', confirmPassword: 'Recovered-1!' }
    expect(await body(await post(resetRoute, payload, undefined, { token: older }))).toEqual({ message: TOKEN_EXPIRED })
    await (
      await sequelize()
    ).query("UPDATE password_reset_tokens SET expires_at = now() - interval '1 second' WHERE user_id = :id", {
      replacements: { id: learner.id },
    })
    expect(await body(await post(resetRoute, payload, undefined, { token: newer }))).toEqual({ message: TOKEN_EXPIRED })
    expect(await body(await post(resetRoute, payload, undefined, { token: 'made-up' }))).toEqual({
      message: TOKEN_EXPIRED,
    })
  })
})

describe('links and password changes', () => {
  it('a password change cancels reset links sent before it', async () => {
    const learner = await makeLearner()
    await post(forgotRoute, { userNameOrEmail: learner.email })
    const token = resetTokenIn(await mailTo(learner.email, RESET))
    const { changePassword } = await import('#app/modules/users/service.server.ts')
    await changePassword(learner, learner.id, {
      currentPassword: PASSWORD,
      password: 'Changed-1st!',
      confirmPassword: 'Changed-1st!',
    })
    const late = await post(resetRoute, { newPassword: 'Attacker-1!', confirmPassword: 'Attacker-1!' }, undefined, {
      token,
    })
    expect(await body(late)).toEqual({ message: TOKEN_EXPIRED })
  })

  it('answers people calls from non-admins with a message about people', async () => {
    const refused = await post(registerRoute, personFields(), (await makeCoach()).token)
    expect(await body(refused)).toEqual({ message: 'Only admins can manage people.' })
  })
})

describe('POST /api/user/coach', () => {
  it('creates a coach without a password who sets one from the mail and signs in to the admin side', async () => {
    const data = {
      firstName: 'Cora',
      lastName: 'Coach',
      userName: `cora${Date.now() % 1e6}`,
      email: `cora${Date.now() % 1e6}@example.com`,
    }
    expect((await post(coachRoute, data, (await makeCoach()).token)).status).toBe(403)
    const created = await post(coachRoute, data, (await makeAdmin()).token)
    expect(await body(created)).toMatchObject({ coach: { roleId: 4, userName: data.userName } })
    await expect(login({ email: data.userName, password: 'anything-1A!' })).rejects.toMatchObject({ status: 401 })
    const token = resetTokenIn(await mailTo(data.email, INVITE))
    await post(resetRoute, { newPassword: 'Coaching-1!', confirmPassword: 'Coaching-1!' }, undefined, { token })
    expect((await login({ email: data.email, password: 'Coaching-1!' })).user.roleId).toBe(4)
  })
})

describe('assigning courses and programs through /api', () => {
  it('assigns for admins only, twice harmlessly, with the old client’s messages', async () => {
    const [admin, learner] = [await makeAdmin(), await makeLearner()]
    const course = await makeCourse()
    const assign = (json: unknown, token?: string) => post(assignCourseRoute, json, token, { userId: learner.id })
    expect((await assign({ courseId: course.id })).status).toBe(401)
    expect((await assign({ courseId: course.id }, learner.token)).status).toBe(403)
    expect((await assign({ courseId: course.id }, (await makeCoach()).token)).status).toBe(403)
    expect(await body(await assign({ courseId: course.id }, admin.token))).toEqual({ message: 'Course assigned.' })
    expect(await body(await assign({ courseId: course.id }, admin.token))).toEqual({
      message: 'This course was already assigned.',
    })
    expect(await body(await assign({}, admin.token))).toMatchObject({
      errors: { courseId: 'Course is a required field to assign' },
    })
    const program = await makeProgram([course.id])
    const put = (json: unknown, token: string) =>
      call(assignProgramRoute.action as never, '/x', { method: 'PUT', json, token })
    expect(await body(await put({ programId: program.id, userId: learner.id }, admin.token))).toEqual({
      message: 'Program assigned.',
    })
    expect(await body(await put({ userId: learner.id }, admin.token))).toMatchObject({
      errors: { programId: 'Course is required field to assign' },
    })
    const profile = await body<{ user: { assignedCourses: string[]; assignedPrograms: string[] } }>(
      await get(profileRoute, '/x', learner.token),
    )
    expect(profile.user).toMatchObject({ assignedCourses: [course.id], assignedPrograms: [program.id] })
  })
})
