import { describe, expect, it, vi } from 'vitest'
import { issueToken } from '#app/modules/auth/token.server.ts'
import { action as unknownApi } from '#app/routes/api+/$.ts'
import { action as loginAction } from '#app/routes/api+/user.login.ts'
import { loader as profileLoader } from '#app/routes/api+/user.profile.ts'
import { db } from '#db/client.ts'
import { assignCourse, makeCourse, makeLearner, makeProgram, assignProgram, PASSWORD } from '#tests/factories.ts'
import { body, call } from '#tests/requests.ts'

const login = (json: unknown, init: RequestInit = {}) =>
  call(loginAction, '/api/user/login', { method: 'POST', json, ...init })

describe('POST /api/user/login', () => {
  it('answers a token for an email or a username, in any case', async () => {
    const learner = await makeLearner()
    for (const identifier of [learner.email, learner.userName, learner.email.toUpperCase()]) {
      const response = await login({ email: identifier, password: PASSWORD })
      expect(response.status).toBe(200)
      const { token } = await body<{ token: string }>(response)
      expect(token.split('.')).toHaveLength(3)
      const profile = await call(profileLoader, '/api/user/profile', { token })
      expect((await body<{ user: { _id: string } }>(profile)).user._id).toBe(learner.id)
    }
  })

  it('answers 401 with the same message for a wrong password and an unknown account', async () => {
    const learner = await makeLearner()
    const wrong = await login({ email: learner.email, password: 'Wrong-pass1!' })
    const unknown = await login({ email: 'nobody@example.com', password: 'Wrong-pass1!' })
    expect(wrong.status).toBe(401)
    expect(unknown.status).toBe(401)
    const [a, b] = [await body(wrong), await body(unknown)]
    expect(a).toEqual({ message: 'Invalid Username/Email or Password.' })
    expect(b).toEqual(a)
  })

  it('answers 400 with { message, errors } for missing fields, with the old client’s messages', async () => {
    const response = await login({})
    expect(response.status).toBe(400)
    expect(await body(response)).toEqual({
      message: 'Username / Email is required field.',
      errors: { email: 'Username / Email is required field.', password: 'Password is required field.' },
    })
    const blank = await login({ email: '   ', password: 'x' })
    expect(blank.status).toBe(400)
  })

  it('answers 400 for malformed JSON, a non-object body and a form body', async () => {
    const malformed = await call(loginAction, '/api/user/login', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: '{"email": "a",',
    })
    expect(malformed.status).toBe(400)
    expect(await body(malformed)).toEqual({ message: 'The request body is not valid JSON.' })
    expect((await login(['a', 'b'])).status).toBe(400)
    const form = await call(loginAction, '/api/user/login', {
      method: 'POST',
      body: new URLSearchParams({ email: 'a', password: 'b' }),
    })
    expect(form.status).toBe(400)
    expect(await body(form)).toHaveProperty('message')
  })

  it('reads JSON by its media type, in any case and with parameters, and nothing that only looks like it', async () => {
    const learner = await makeLearner()
    const json = JSON.stringify({ email: learner.email, password: PASSWORD })
    for (const type of ['application/json', 'APPLICATION/JSON', 'application/json; charset=utf-8']) {
      const response = await call(loginAction, '/api/user/login', {
        method: 'POST',
        headers: { 'Content-Type': type },
        body: json,
      })
      expect(response.status, type).toBe(200)
    }
    for (const type of ['application/jsonx', 'text/plain; application/json']) {
      const response = await call(loginAction, '/api/user/login', {
        method: 'POST',
        headers: { 'Content-Type': type },
        body: json,
      })
      expect(response.status, type).toBe(400)
      expect(await body(response)).toEqual({
        message: 'Send the request body as JSON (Content-Type: application/json).',
      })
    }
  })

  it('answers 400, not 500, to a NUL character in a field', async () => {
    const learner = await makeLearner()
    for (const json of [
      { email: `${learner.userName}\u0000`, password: PASSWORD },
      { email: learner.userName, password: `${PASSWORD}\u0000` },
    ]) {
      const response = await login(json)
      expect(response.status).toBe(400)
      expect(await body(response)).toMatchObject({ message: 'Text cannot contain NUL characters.' })
    }
  })

  it('answers 405 to another method', async () => {
    const response = await call(loginAction, '/api/user/login', { method: 'PUT', json: {} })
    expect(response.status).toBe(405)
    expect(response.headers.get('Allow')).toBe('POST')
  })
})

describe('GET /api/user/profile', () => {
  it('answers the caller with role and assignments, direct and through a program', async () => {
    const learner = await makeLearner()
    const direct = await makeCourse()
    const viaProgram = await makeCourse()
    await assignCourse(learner.id, direct.id)
    const program = await makeProgram([viaProgram.id])
    await assignProgram(learner.id, program.id)
    const response = await call(profileLoader, '/api/user/profile', { token: learner.token })
    expect(response.status).toBe(200)
    const { user } = await body<{ user: Record<string, unknown> }>(response)
    expect(user).toMatchObject({
      _id: learner.id,
      email: learner.email,
      userName: learner.userName,
      role: { r_id: 2 },
      assignedCourses: [direct.id],
      assignedPrograms: [program.id],
    })
    expect(user).not.toHaveProperty('passwordHash')
    expect(JSON.stringify(user)).not.toMatch(/argon2/)
  })

  it('accepts a bare token as well as a Bearer one', async () => {
    const learner = await makeLearner()
    const response = await call(profileLoader, '/api/user/profile', { headers: { Authorization: learner.token } })
    expect(response.status).toBe(200)
  })

  it('answers 401 with { message } without a token, with a forged one, and after a password change', async () => {
    const learner = await makeLearner()
    const none = await call(profileLoader, '/api/user/profile')
    expect(none.status).toBe(401)
    expect(await body(none)).toHaveProperty('message')

    const [header, payload] = learner.token.split('.')
    const forged = await call(profileLoader, '/api/user/profile', { token: `${header}.${payload}.c2lnbmF0dXJl` })
    expect(forged.status).toBe(401)

    const unsigned = `${Buffer.from('{"alg":"none","typ":"JWT"}').toString('base64url')}.${payload}.`
    expect((await call(profileLoader, '/api/user/profile', { token: unsigned })).status).toBe(401)

    // a password change bumps the token version: older tokens stop working
    const { User } = await db()
    await User.increment('tokenVersion', { where: { id: learner.id } })
    expect((await call(profileLoader, '/api/user/profile', { token: learner.token })).status).toBe(401)
  })

  it('answers 401 for an expired token', async () => {
    const learner = await makeLearner()
    const { SignJWT } = await import('jose')
    const { getSecrets } = await import('#app/utils/env.server.ts')
    const expired = await new SignJWT({ r_id: 2, ver: 0 })
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject(learner.id)
      .setIssuedAt(Math.floor(Date.now() / 1000) - 7200)
      .setExpirationTime(Math.floor(Date.now() / 1000) - 3600)
      .sign(new TextEncoder().encode(getSecrets().jwtSecret))
    expect((await call(profileLoader, '/api/user/profile', { token: expired })).status).toBe(401)
    // and the same user with a fresh token is fine
    const fresh = await issueToken({ id: learner.id, roleId: 2, tokenVersion: 0 })
    expect((await call(profileLoader, '/api/user/profile', { token: fresh })).status).toBe(200)
  })

  it('refuses a token once it expires, though its signature was checked while it was valid', async () => {
    const learner = await makeLearner()
    const token = await issueToken({ id: learner.id, roleId: 2, tokenVersion: 0 })
    expect((await call(profileLoader, '/api/user/profile', { token })).status).toBe(200)
    vi.useFakeTimers({ now: Date.now() + 25 * 60 * 60 * 1000, toFake: ['Date'] })
    try {
      expect((await call(profileLoader, '/api/user/profile', { token })).status).toBe(401)
    } finally {
      vi.useRealTimers()
    }
  })
})

describe('an unknown /api path', () => {
  it('answers 404 JSON, not a page', async () => {
    const response = await call(unknownApi, '/api/nothing/here', { method: 'POST' })
    expect(response.status).toBe(404)
    expect(await body(response)).toEqual({ message: 'No such API call.' })
  })
})
