import { describe, expect, it } from 'vitest'
import { login } from '#app/modules/auth/service.server.ts'
import * as editProfileRoute from '#app/routes/api+/user.editProfile.ts'
import * as profileRoute from '#app/routes/api+/user.profile.ts'
import * as passwordRoute from '#app/routes/api+/user.profilePassword.ts'
import { makeLearner, makeUser, PASSWORD } from '#tests/factories.ts'
import { body, call } from '#tests/requests.ts'

const put = (route: { action: unknown }, token: string, json: unknown) =>
  call(route.action as never, '/x', { method: 'PUT', token, json })

type Caller = { id: string; token: string }
/** The profile form sent by the account it is about. */
const editOwnProfile = (caller: Caller, fields: Record<string, unknown>) =>
  put(editProfileRoute, caller.token, { userId: caller.id, ...fields })
/** The password form sent by the account it is about. */
const changeOwnPassword = (caller: Caller, fields: Record<string, unknown>) =>
  put(passwordRoute, caller.token, { userId: caller.id, ...fields })

describe('PUT /api/user/editProfile', () => {
  it('changes one’s own names, never the email, and answers the old client’s messages', async () => {
    const learner = await makeLearner()
    const ok = await editOwnProfile(learner, {
      firstName: 'Renamed',
      lastName: 'Person',
      userName: 'renamed.person',
      email: learner.email,
    })
    expect(ok.status).toBe(200)
    expect(await body(ok)).toMatchObject({
      message: 'Profile updated.',
      user: { firstName: 'Renamed', userName: 'renamed.person' },
    })

    const invalid = await editOwnProfile(learner, { firstName: '', userName: 'abc' })
    expect(await body(invalid)).toMatchObject({
      errors: { firstName: 'Firstname field is required', userName: 'UserName must be at least 4 characters' },
    })
    const empty = await editOwnProfile(learner, { firstName: 'Name', userName: '' })
    expect(await body(empty)).toMatchObject({ errors: { userName: 'UserName field is required' } })
    const email = await editOwnProfile(learner, {
      firstName: 'Renamed',
      userName: 'renamed.person',
      email: 'new@example.com',
    })
    expect(await body(email)).toMatchObject({ errors: { email: 'Email cannot be changed.' } })
  })

  it('refuses someone else’s profile and a username in use (409 naming userName)', async () => {
    const [learner, other] = [await makeLearner(), await makeUser({ userName: 'TakenName' })]
    expect(
      (await put(editProfileRoute, learner.token, { userId: other.id, firstName: 'X', userName: 'xxxx' })).status,
    ).toBe(403)
    const taken = await editOwnProfile(learner, { firstName: 'Name', userName: 'takenname' })
    expect(taken.status).toBe(409)
    expect(await body(taken)).toMatchObject({ errors: { userName: 'UserName already exists.' } })
  })
})

describe('the account an /api call names', () => {
  it('is a 400, not a 500, when userId is not a user id, and nothing changes', async () => {
    const learner = await makeLearner()
    const profile = { firstName: 'Renamed', userName: 'renamed.again' }
    const passwords = { currentPassword: PASSWORD, newPassword: 'Fresh-pass2@', confirmPassword: 'Fresh-pass2@' }
    // an object whose toString is not a function: String() throws on it
    for (const userId of [{ toString: 1 }, 7, 'someone', [learner.id]]) {
      for (const [route, fields] of [
        [editProfileRoute, profile],
        [passwordRoute, passwords],
      ] as const) {
        const refused = await put(route, learner.token, { ...fields, userId })
        expect(refused.status, JSON.stringify(userId)).toBe(400)
        expect(await body(refused)).toMatchObject({ errors: { userId: 'userId must be a user id.' } })
      }
    }
    expect(await body(await call(profileRoute.loader as never, '/x', { token: learner.token }))).toMatchObject({
      user: { userName: learner.userName },
    })
    // left out or null: the caller's own
    expect((await put(editProfileRoute, learner.token, { ...profile, userId: null })).status).toBe(200)
  })
})

describe('PUT /api/user/profilePassword', () => {
  it('changes the password after checking the current one, and signs every session out', async () => {
    const learner = await makeLearner()
    const wrong = await changeOwnPassword(learner, {
      currentPassword: 'Not-it-1!',
      newPassword: 'Fresh-pass2@',
      confirmPassword: 'Fresh-pass2@',
    })
    expect(await body(wrong)).toMatchObject({ errors: { currentPassword: 'The current password is not right.' } })

    const changed = await changeOwnPassword(learner, {
      currentPassword: PASSWORD,
      newPassword: 'Fresh-pass2@',
      confirmPassword: 'Fresh-pass2@',
    })
    expect(changed.status).toBe(200)
    expect((await call(profileRoute.loader as never, '/x', { token: learner.token })).status).toBe(401)
    await expect(login({ email: learner.userName, password: PASSWORD })).rejects.toMatchObject({ status: 401 })
    expect((await login({ email: learner.userName, password: 'Fresh-pass2@' })).user.id).toBe(learner.id)
  })

  it('answers the old client’s messages', async () => {
    const learner = await makeLearner()
    const empty = await changeOwnPassword(learner, {})
    expect(await body(empty)).toMatchObject({
      errors: {
        currentPassword: 'Current Password field is required field.',
        newPassword: 'Password field is required field.',
        confirmPassword: 'Confirm Password field is required field.',
      },
    })
    const weak = await changeOwnPassword(learner, {
      currentPassword: PASSWORD,
      newPassword: 'weakpass',
      confirmPassword: 'other',
    })
    // named as the old client sent it; a client that says password hears password
    expect(await body(weak)).toEqual({
      message: 'min 8 char with 1 lower, upper, number & symbol',
      errors: {
        newPassword: 'min 8 char with 1 lower, upper, number & symbol',
        confirmPassword: 'Passwords must match',
      },
    })
    const weakByFormName = await changeOwnPassword(learner, {
      currentPassword: PASSWORD,
      password: 'weakpass',
      confirmPassword: 'weakpass',
    })
    expect((await body(weakByFormName)).errors).toEqual({ password: 'min 8 char with 1 lower, upper, number & symbol' })
    const other = await makeLearner()
    expect(
      (
        await put(passwordRoute, learner.token, {
          userId: other.id,
          currentPassword: PASSWORD,
          newPassword: 'Fresh-pass2@',
          confirmPassword: 'Fresh-pass2@',
        })
      ).status,
    ).toBe(403)
  })
})
