import { describe, expect, it } from 'vitest'
import { db } from '#db/client.ts'
import { seedDemoOnce } from '#db/seeds/demo.ts'
import { makeAdmin } from '#tests/factories.ts'

describe('the demo content on a database in use', () => {
  it('is never added, so no account with a published password appears', async () => {
    await makeAdmin()
    expect(await seedDemoOnce()).toEqual({ seeded: false })
    const { Course, User } = await db()
    expect(await Course.count()).toBe(0)
    expect(await User.count()).toBe(1)
    expect(await seedDemoOnce()).toEqual({ seeded: false })
  })
})
