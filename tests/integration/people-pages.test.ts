import { within } from '@testing-library/dom'
import { describe, expect, it } from 'vitest'
import { login } from '#app/modules/auth/service.server.ts'
import * as forgotPage from '#app/routes/_auth+/forgot-Password.tsx'
import * as resetPage from '#app/routes/_auth+/reset-Password.$token.tsx'
import * as resetByQueryPage from '#app/routes/_auth+/reset-password.tsx'
import * as adminList from '#app/routes/admin+/adminUsers.tsx'
import * as coachList from '#app/routes/admin+/coach.tsx'
import * as userDetails from '#app/routes/admin+/user.$userId.tsx'
import * as usersList from '#app/routes/admin+/users.tsx'
import { getEnv } from '#app/utils/env.server.ts'
import { db } from '#db/client.ts'
import {
  makeAdmin,
  makeCoach,
  makeCourse,
  makeLearner,
  makeProgram,
  makeSuperAdmin,
  personFields,
} from '#tests/factories.ts'
import { resetTokenIn, waitForMail } from '#tests/outbox.ts'
import { renderRoute } from '#tests/render.tsx'
import { call } from '#tests/requests.ts'
import { sessionCookieFor, toastOf } from '#tests/sessions.ts'

type Reply = { result: { error: Record<string, string[] | null>; initialValue: Record<string, unknown> } }
const post = (route: { action: unknown }, path: string, cookie: string, body: Record<string, string>, params = {}) =>
  call(route.action as never, path, {
    method: 'POST',
    headers: { Cookie: cookie },
    body: new URLSearchParams(body),
    params,
  })

describe('the people lists', () => {
  it('let an admin create a learner from Users List, with the registration messages', async () => {
    const admin = await sessionCookieFor((await makeAdmin()).userName)
    const data = personFields()
    const created = await post(usersList, '/admin/users?new=1', admin, data)
    expect(created.headers.get('Location')).toBe('/admin/users')
    expect(await toastOf(created)).toMatchObject({ message: `User ${data.userName} created.` })
    const { User } = await db()
    expect(await User.findOne({ where: { userName: data.userName } })).toMatchObject({ roleId: 2 })

    const invalid = await post(usersList, '/admin/users?new=1', admin, {
      ...personFields(),
      firstName: 'Al',
      confirmPassword: 'x',
    })
    expect(((await invalid.json()) as Reply).result.error).toMatchObject({
      firstName: ['First Name must be at least 4 characters.'],
      confirmPassword: ['Passwords must match'],
    })
    const duplicate = await post(usersList, '/admin/users?new=1', admin, { ...personFields(), email: data.email })
    expect(duplicate.status).toBe(409)
    const refused = ((await duplicate.json()) as Reply).result
    expect(refused.error.email).toEqual(['Email already exists.'])
    // what was typed is kept, but never the passwords, which would be rendered as values
    expect(refused.initialValue).toMatchObject({ email: data.email })
    expect(refused.initialValue).not.toHaveProperty('password')
    expect(refused.initialValue).not.toHaveProperty('confirmPassword')
  })

  it('let only the super admin create and remove admins', async () => {
    const admin = await sessionCookieFor((await makeAdmin()).userName)
    const attempt = personFields()
    const refused = await post(adminList, '/admin/adminUsers?new=1', admin, attempt)
    expect(refused.status).toBe(403)
    expect(((await refused.json()) as Reply).result.error['']).toEqual([
      'You do not have permission to create this kind of account.',
    ])
    expect(await (await db()).User.findOne({ where: { userName: attempt.userName } })).toBeNull()
    const superAdmin = await sessionCookieFor((await makeSuperAdmin()).userName)
    const data = personFields()
    await post(adminList, '/admin/adminUsers?new=1', superAdmin, data)
    const { User } = await db()
    const made = await User.findOne({ where: { userName: data.userName } })
    expect(made?.roleId).toBe(3)
    const removed = await post(adminList, `/admin/adminUsers?remove=${made?.id}`, superAdmin, {
      userId: made?.id ?? '',
    })
    expect(await toastOf(removed)).toMatchObject({ message: `Admin ${data.userName} removed.` })
    expect(await User.findByPk(made?.id)).toBeNull()
  })

  it('refuse on Admin’s List to remove an admin for an admin, and the super admin’s own, super or learner account', async () => {
    const [target, superAdmin, otherSuper, learner] = [
      await makeAdmin(),
      await makeSuperAdmin(),
      await makeSuperAdmin(),
      await makeLearner(),
    ]
    const remove = (cookie: string, userId: string) =>
      post(adminList, `/admin/adminUsers?remove=${userId}`, cookie, { userId })
    const byAdmin = await remove(await sessionCookieFor((await makeAdmin()).userName), target.id)
    expect(byAdmin.headers.get('Location')).toBe('/admin/adminUsers')
    expect(await toastOf(byAdmin)).toMatchObject({
      type: 'error',
      message: 'Only the super admin can remove admins.',
    })

    const superCookie = await sessionCookieFor(superAdmin.userName)
    for (const [user, message] of [
      [superAdmin, 'You cannot remove your own account.'],
      [otherSuper, 'Only admins can be removed here.'],
      [learner, 'Only admins can be removed here.'],
    ] as const) {
      const refused = await remove(superCookie, user.id)
      expect(refused.headers.get('Location'), user.userName).toBe('/admin/adminUsers')
      expect(await toastOf(refused), user.userName).toMatchObject({ type: 'error', message })
    }
    const { User } = await db()
    for (const user of [target, superAdmin, otherSuper, learner])
      expect(await User.findByPk(user.id), user.userName).toMatchObject({ roleId: user.roleId })
  })

  it('let an admin create a coach who is invited by mail; a coach reads the lists but creates nobody', async () => {
    const admin = await sessionCookieFor((await makeAdmin()).userName)
    const { password: _p, confirmPassword: _c, ...coach } = personFields()
    const created = await post(coachList, '/admin/coach?new=1', admin, coach)
    expect(await toastOf(created)).toMatchObject({ message: expect.stringContaining('invitation') })
    const coachCookie = await sessionCookieFor((await makeCoach()).userName)
    const list = await call(coachList.loader as never, `/admin/coach?q=${coach.userName}`, {
      headers: { Cookie: coachCookie },
    })
    expect(await list.json()).toMatchObject({ total: 1, canCreate: false })
    const { password: _p2, confirmPassword: _c2, ...other } = personFields()
    const byCoach = await post(coachList, '/admin/coach?new=1', coachCookie, other)
    expect(byCoach.headers.get('Location')).toBe('/admin/coach')
    expect(await toastOf(byCoach)).toMatchObject({ type: 'error', message: 'Only admins can manage people.' })
    const learner = personFields()
    const learnerByCoach = await post(usersList, '/admin/users?new=1', coachCookie, learner)
    expect(learnerByCoach.headers.get('Location')).toBe('/admin/users')
    expect(await toastOf(learnerByCoach)).toMatchObject({ type: 'error', message: 'Only admins can manage people.' })
    const { User } = await db()
    for (const refused of [other, learner]) {
      expect(await User.findOne({ where: { userName: refused.userName } })).toBeNull()
      expect(await User.findOne({ where: { email: refused.email } })).toBeNull()
    }
  })
})

describe('User Details', () => {
  it('shows the profile and assigned courses, and assigns a course and a program once each', async () => {
    const learner = await makeLearner()
    const [direct, inProgram] = [await makeCourse({ title: 'Direct' }), await makeCourse({ title: 'Program part' })]
    const program = await makeProgram([inProgram.id])
    const admin = await sessionCookieFor((await makeAdmin()).userName)
    const params = { userId: learner.id }
    const path = `/admin/user/${learner.id}`
    expect(
      await toastOf(await post(userDetails, `${path}?assign=course`, admin, { courseId: direct.id }, params)),
    ).toMatchObject({
      message: 'Course assigned.',
    })
    expect(
      await toastOf(await post(userDetails, `${path}?assign=course`, admin, { courseId: direct.id }, params)),
    ).toMatchObject({
      message: 'This course was already assigned.',
    })
    await post(userDetails, `${path}?assign=program`, admin, { programId: program.id }, params)
    const missing = await post(userDetails, `${path}?assign=course`, admin, {}, params)
    expect(((await missing.json()) as Reply).result.error.courseId).toEqual(['Course is a required field to assign'])
    const page = (await (
      await call(userDetails.loader as never, path, { headers: { Cookie: admin }, params })
    ).json()) as {
      courses: { title: string }[]
      dues: { courses: { title: string }[]; programs: { id: string }[] }
    }
    expect(page.courses.map((c) => c.title)).toEqual(['Direct', 'Program part'])
    // the course assigned directly, and the program, each with its due date (none here)
    expect(page.dues.courses.map((c) => c.title)).toEqual(['Direct'])
    expect(page.dues.programs.map((p) => p.id)).toEqual([program.id])
  })

  it('shows a refused assignment beside its own choice only, without JavaScript', async () => {
    const learner = await makeLearner()
    const course = await makeCourse({ title: 'Not yet assigned' })
    const admin = await sessionCookieFor((await makeAdmin()).userName)
    const page = await renderRoute(userDetails as never, `/admin/user/${learner.id}?assign=program`, {
      cookie: admin,
      pattern: '/admin/user/:userId',
      form: [['programId', crypto.randomUUID()]],
    })
    const assignProgram = page.getByRole('form', { name: 'Assign Program' })
    expect(within(assignProgram).getByRole('combobox', { name: 'Program' })).toHaveAccessibleDescription(
      'Course is required field to assign',
    )
    expect(within(assignProgram).getByRole('button', { name: 'Assign Program' })).toBeEnabled()
    const assignCourse = page.getByRole('form', { name: 'Assign New Course' })
    const courses = within(assignCourse).getByRole('combobox', { name: 'Course' })
    expect(courses).not.toHaveAccessibleDescription()
    expect(within(courses).getByRole('option', { name: course.title })).toHaveValue(course.id)
    expect(assignCourse).toHaveAttribute('action', expect.stringMatching(/\?assign=course$/))
  })

  it('refuses a coach who assigns a course or a program, with an error toast and no assignment', async () => {
    const learner = await makeLearner()
    const course = await makeCourse()
    const program = await makeProgram([(await makeCourse()).id])
    const coach = await sessionCookieFor((await makeCoach()).userName)
    const params = { userId: learner.id }
    const path = `/admin/user/${learner.id}`
    for (const [query, body] of [
      ['course', { courseId: course.id }],
      ['program', { programId: program.id }],
    ] as const) {
      const refused = await post(userDetails, `${path}?assign=${query}`, coach, body, params)
      expect(refused.status, query).toBe(302)
      expect(refused.headers.get('Location'), query).toBe(path)
      expect(await toastOf(refused), query).toMatchObject({
        type: 'error',
        message: 'Only admins can manage people.',
      })
    }
    const { CourseAssignment, ProgramAssignment } = await db()
    expect(await CourseAssignment.count({ where: { userId: learner.id } })).toBe(0)
    expect(await ProgramAssignment.count({ where: { userId: learner.id } })).toBe(0)
  })
})

describe('the password recovery pages', () => {
  it('mail a link that opens the form, sets the password and goes to /sign-in; the link is then used up', async () => {
    const learner = await makeLearner()
    const asked = await call(forgotPage.action as never, '/forgot-Password', {
      method: 'POST',
      body: new URLSearchParams({ email: learner.email }),
    })
    expect(asked.headers.get('Location')).toBe('/forgot-Password?sent=1')
    const token = resetTokenIn(await waitForMail(getEnv().DATA_DIR, { to: learner.email, subject: /^Reset your/ }))
    expect((await call(resetPage.loader as never, `/reset-Password/${token}`, { params: { token } })).status).toBe(200)
    const done = await call(resetPage.action as never, `/reset-Password/${token}`, {
      method: 'POST',
      params: { token },
      body: new URLSearchParams({ password: 'Mail-link1!', confirmPassword: 'Mail-link1!' }),
    })
    expect(done.headers.get('Location')).toBe('/sign-in')
    expect((await login({ email: learner.email, password: 'Mail-link1!' })).user.id).toBe(learner.id)
    const reused = await call(resetByQueryPage.loader as never, `/reset-password?token=${token}`)
    expect(reused.headers.get('Location')).toBe('/forgot-Password')
    expect(await toastOf(reused)).toMatchObject({
      type: 'error',
      message: 'Token Expired, Please enter your email id to verify again.',
    })
  })

  it('open the mailed link read as /reset-password?token=…, set the password and go to /sign-in', async () => {
    const learner = await makeLearner()
    await call(forgotPage.action as never, '/forgot-Password', {
      method: 'POST',
      body: new URLSearchParams({ email: learner.email }),
    })
    const token = resetTokenIn(await waitForMail(getEnv().DATA_DIR, { to: learner.email, subject: /^Reset your/ }))
    const path = `/reset-password?token=${token}`
    expect((await call(resetByQueryPage.loader as never, path)).status).toBe(200)
    const done = await call(resetByQueryPage.action as never, path, {
      method: 'POST',
      body: new URLSearchParams({ password: 'Query-link1!', confirmPassword: 'Query-link1!' }),
    })
    expect(done.headers.get('Location')).toBe('/sign-in')
    expect((await login({ email: learner.email, password: 'Query-link1!' })).user.id).toBe(learner.id)
  })

  it('answer the old client’s messages on both forms', async () => {
    const empty = await call(forgotPage.action as never, '/forgot-Password', {
      method: 'POST',
      body: new URLSearchParams({}),
    })
    expect(((await empty.json()) as Reply).result.error.email).toEqual(['Email is required field.'])
    const bad = await call(forgotPage.action as never, '/forgot-Password', {
      method: 'POST',
      body: new URLSearchParams({ email: 'not-an-email' }),
    })
    expect(((await bad.json()) as Reply).result.error.email).toEqual(['Email is invalid.'])
    const weak = await call(resetPage.action as never, '/reset-Password/x', {
      method: 'POST',
      params: { token: 'x' },
      body: new URLSearchParams({ password: '', confirmPassword: '' }),
    })
    expect(((await weak.json()) as Reply).result.error).toMatchObject({
      password: ['Password field is required field.'],
      confirmPassword: ['Confirm Password field is required field.'],
    })
  })
})
