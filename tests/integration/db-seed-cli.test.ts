import { describe, expect, it } from 'vitest'
import { DEMO_ACCOUNTS } from '#db/seeds/demo.ts'
import { portal } from '#tests/cli.ts'

// `portal db seed` in a child process, on this file's own database: empty, as a fresh installation's.

describe('portal db seed --demo --json', () => {
  it(
    'prints { seeded, accounts } alone on stdout, the first time and every time after',
    { timeout: 180_000 },
    async () => {
      const first = await portal(['db', 'seed', '--demo', '--json'])
      expect(first.code).toBe(0)
      expect(JSON.parse(first.stdout)).toEqual({
        seeded: true,
        accounts: DEMO_ACCOUNTS.map(({ role, userName, email }) => ({ role, userName, email })),
      })
      // a line of its own (a slow statement's warning may come before it on a busy machine)
      expect(first.stderr).toMatch(/^demo content seeded: /m)

      const again = await portal(['db', 'seed', '--demo', '--json'])
      expect(again).toMatchObject({ code: 0, stdout: '{"seeded":false,"accounts":[]}\n' })
    },
  )
})
