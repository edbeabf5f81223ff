import { beforeEach, describe, expect, it } from 'vitest'
import { SYSTEM } from '#app/modules/auth/roles.ts'
import {
  ACCOUNT_UNDER_ATTACK_FAILURES,
  ADDRESS_FAILURE_LIMIT,
  listSignInEvents,
  PAIR_FAILURE_LIMIT,
  PAIR_FAILURE_LIMIT_UNDER_ATTACK,
  signInLimits,
  TOO_MANY_ATTEMPTS,
} from '#app/modules/auth/sign-ins.server.ts'
import * as loginRoute from '#app/routes/api+/user.login.ts'
import { sequelize } from '#db/client.ts'
import { portal } from '#tests/cli.ts'
import { makeAdmin, makeCoach, makeLearner, PASSWORD } from '#tests/factories.ts'
import { body, call } from '#tests/requests.ts'

// Sign-in throttling: a stranger's wrong passwords must not keep the account's owner out, while one
// address guessing, or many addresses guessing one account, are still held back.

const OWNER = '192.0.2.10'
const STRANGER = '203.0.113.66'
const WRONG = 'Wrong-pass1!'

const attempt = (email: string, password: string, address: string) =>
  call(loginRoute.action as never, '/api/user/login', {
    method: 'POST',
    json: { email, password },
    headers: { 'X-Portal-Client-Address': address },
  })

async function fail(email: string, address: string, times: number) {
  const statuses: number[] = []
  for (let i = 0; i < times; i++) statuses.push((await attempt(email, WRONG, address)).status)
  return statuses
}

beforeEach(async () => {
  await (await sequelize()).query('DELETE FROM sign_in_events; DELETE FROM rate_limits')
})

describe('sign-in throttling', () => {
  it('lets twelve simultaneous sign-ins with the right password all in: only failures count', async () => {
    const learner = await makeLearner()
    const answers = await Promise.all(Array.from({ length: 12 }, () => attempt(learner.userName, PASSWORD, OWNER)))
    expect(answers.map((r) => r.status)).toEqual(Array.from({ length: 12 }, () => 200))
  })

  it('never refuses the owner at another address, however many failures a stranger made', async () => {
    const learner = await makeLearner()
    const stranger = await fail(learner.userName, STRANGER, PAIR_FAILURE_LIMIT + 2)
    expect(stranger.slice(0, PAIR_FAILURE_LIMIT)).toEqual(Array.from({ length: PAIR_FAILURE_LIMIT }, () => 401))
    expect(stranger.slice(PAIR_FAILURE_LIMIT)).toEqual([429, 429])
    // the stranger is refused even with the right password, so guessing on reveals nothing
    const refused = await attempt(learner.userName, PASSWORD, STRANGER)
    expect(refused.status).toBe(429)
    expect(await body(refused)).toEqual({ message: TOO_MANY_ATTEMPTS })
    expect((await attempt(learner.email, PASSWORD, OWNER)).status).toBe(200)
  })

  it('refuses one address after ten failures for one account, known or not, until the window moves on', async () => {
    const learner = await makeLearner()
    await fail(learner.userName, STRANGER, PAIR_FAILURE_LIMIT)
    expect((await attempt(learner.userName, PASSWORD, STRANGER)).status).toBe(429)
    // the same for an account that does not exist, so the answer reveals nothing
    await fail('ghost-account', STRANGER, PAIR_FAILURE_LIMIT)
    expect((await attempt('ghost-account', WRONG, STRANGER)).status).toBe(429)
    // every count's window (and the refusal it holds) ended a minute ago; expire is in epoch milliseconds
    await (
      await sequelize()
    ).query("UPDATE rate_limits SET expire = CAST(extract(epoch FROM now() - interval '1 minute') * 1000 AS bigint)")
    expect((await attempt(learner.userName, PASSWORD, STRANGER)).status).toBe(200)
  })

  it('forgets an address’s failures for an account once it signs in to it', async () => {
    const learner = await makeLearner()
    await fail(learner.userName, OWNER, PAIR_FAILURE_LIMIT - 1)
    expect((await attempt(learner.userName, PASSWORD, OWNER)).status).toBe(200)
    expect(await fail(learner.userName, OWNER, PAIR_FAILURE_LIMIT - 1)).not.toContain(429)
    expect((await attempt(learner.userName, PASSWORD, OWNER)).status).toBe(200)
  })

  it('checks no more than ten passwords of a burst from one address', async () => {
    const learner = await makeLearner()
    const answers = await Promise.all(Array.from({ length: 30 }, () => attempt(learner.userName, WRONG, STRANGER)))
    expect(answers.filter((r) => r.status === 401).length).toBe(PAIR_FAILURE_LIMIT)
    expect(answers.filter((r) => r.status === 429).length).toBe(30 - PAIR_FAILURE_LIMIT)
  })

  it('refuses an address that failed a hundred times across accounts, for every account, and no other address', async () => {
    const learner = await makeLearner()
    // a hundred different accounts guessed from one address: counted as the real attempts would be
    const { failures } = await signInLimits()
    for (let bot = 1; bot <= ADDRESS_FAILURE_LIMIT; bot++) await failures.address.penalty(STRANGER)
    expect((await attempt(learner.userName, PASSWORD, STRANGER)).status).toBe(429)
    expect((await attempt(learner.userName, PASSWORD, OWNER)).status).toBe(200)
  })

  it('under attack from many addresses, holds back the addresses that failed while a fresh one signs in', async () => {
    const learner = await makeLearner()
    // a botnet: two guesses from each of many addresses, as many failures as make an attack
    const bots = Array.from({ length: ACCOUNT_UNDER_ATTACK_FAILURES / 2 }, (_, i) => `198.51.100.${i + 1}`)
    const guesses = await Promise.all(bots.map((bot) => fail(learner.userName, bot, 2)))
    expect(guesses.flat()).toEqual(Array.from({ length: ACCOUNT_UNDER_ATTACK_FAILURES }, () => 401))
    // an address that has failed gets fewer guesses now …
    const held = await fail(learner.userName, STRANGER, PAIR_FAILURE_LIMIT_UNDER_ATTACK + 1)
    expect(held.at(-1)).toBe(429)
    expect(held.slice(0, PAIR_FAILURE_LIMIT_UNDER_ATTACK)).not.toContain(429)
    expect((await attempt(learner.userName, WRONG, bots[0])).status).toBe(401)
    expect((await attempt(learner.userName, WRONG, bots[0])).status).toBe(429)
    // … and the owner, at an address that has not been failing, signs in at once
    expect((await attempt(learner.userName, PASSWORD, OWNER)).status).toBe(200)
    // some forty passwords checked (argon2id, 64 MiB each)
  }, 90_000)
})

describe('the record of sign-ins', () => {
  it('keeps each attempt’s account, address and outcome, for admins', async () => {
    const learner = await makeLearner()
    expect((await attempt(learner.email, PASSWORD, OWNER)).status).toBe(200)
    await fail(learner.userName, STRANGER, PAIR_FAILURE_LIMIT + 1)
    await fail('no-such-person', STRANGER, 1)

    const admin = await makeAdmin()
    const events = await listSignInEvents(admin, { user: learner.userName })
    expect(events.map((e) => e.outcome)).toEqual([
      'throttled',
      ...Array.from({ length: PAIR_FAILURE_LIMIT }, () => 'wrong_password'),
      'success',
    ])
    expect(events.at(-1)).toMatchObject({
      userId: learner.id,
      account: learner.email,
      address: OWNER,
      outcome: 'success',
    })
    expect(events[0]).toMatchObject({ address: STRANGER, outcome: 'throttled' })
    expect(new Date(events[0].at).getTime()).toBeGreaterThan(Date.now() - 60_000)

    const unknown = await listSignInEvents(SYSTEM, { address: STRANGER, outcome: 'wrong_password', limit: 1 })
    expect(unknown).toEqual([expect.objectContaining({ userId: null, account: 'no-such-person' })])

    await expect(listSignInEvents(learner, {})).rejects.toMatchObject({ status: 403 })
    await expect(listSignInEvents(await makeCoach(), {})).rejects.toMatchObject({ status: 403 })
  })

  it('lists them with `portal users sign-ins`', async () => {
    const learner = await makeLearner()
    await attempt(learner.userName, PASSWORD, OWNER)
    await attempt(learner.userName, WRONG, STRANGER)
    const listed = await portal(['users', 'sign-ins', '--user', learner.email, '--json'])
    expect(listed.code).toBe(0)
    const rows = JSON.parse(listed.stdout) as { outcome: string; address: string }[]
    expect(rows.map((r) => [r.outcome, r.address])).toEqual([
      ['wrong_password', STRANGER],
      ['success', OWNER],
    ])
    const table = await portal(['users', 'sign-ins', '--address', STRANGER])
    expect(table.stdout).toMatch(new RegExp(`wrong_password.*${learner.email}|${learner.email}.*wrong_password`))
    expect((await portal(['users', 'sign-ins', '--outcome', 'maybe'])).code).toBe(2)
  })
})
