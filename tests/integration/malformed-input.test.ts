import { describe, expect, it } from 'vitest'
import * as editVideo from '#app/routes/api+/category.editVideo.$videoId.ts'
import * as editDocumentOrder from '#app/routes/api+/category.editDocumentOrder_.$documentId.ts'
import * as login from '#app/routes/api+/user.login.ts'
import * as editProfile from '#app/routes/api+/user.editProfile.ts'
import * as profilePassword from '#app/routes/api+/user.profilePassword.ts'
import { makeAdmin, makeLearner, PASSWORD } from '#tests/factories.ts'
import { body, call } from '#tests/requests.ts'

// Values no client means to send, of which JavaScript cannot even make a string or a number (an object
// whose toString is not a function), are refused as bad input, never answered 500.

const unprintable = { toString: 1 }
const nowhere = '00000000-0000-0000-0000-000000000000'

async function tokenOf(user: { email: string }) {
  const response = await call(login.action, '/api/user/login', {
    method: 'POST',
    json: { email: user.email, password: PASSWORD },
  })
  return (await body<{ token: string }>(response)).token
}

describe('an unprintable value', () => {
  it('as the userId of the own-account calls is a 400', async () => {
    const token = await tokenOf(await makeLearner())
    for (const [action, path, json] of [
      [editProfile.action, '/api/user/editProfile', { userId: unprintable, firstName: 'Ana' }],
      [profilePassword.action, '/api/user/profilePassword', { userId: unprintable, currentPassword: PASSWORD }],
    ] as const) {
      const response = await call(action, path, { method: 'PUT', json, token })
      expect(response.status, path).toBe(400)
      expect(await body(response)).toEqual({ message: 'userId must be a user id.' })
    }
  })

  it('as an orderId is the order field’s own message', async () => {
    const token = await tokenOf(await makeAdmin())
    for (const [action, path, params] of [
      [editDocumentOrder.action, `/api/category/editDocumentOrder/${nowhere}`, { documentId: nowhere }],
      [editVideo.action, `/api/category/editVideo/${nowhere}`, { videoId: nowhere }],
    ] as const) {
      const response = await call(action, path, { method: 'PUT', json: { orderId: unprintable }, token, params })
      expect(response.status, path).toBe(400)
      const answer = await body<{ errors: Record<string, string> }>(response)
      expect(answer.errors.orderId, path).toBe('Order Id must be a whole number.')
    }
  })
})
