import { RateLimiterRes } from 'rate-limiter-flexible'
import { Sequelize } from 'sequelize'
import { afterAll, describe, expect, it } from 'vitest'
import { sequelize } from '#db/client.ts'
import { rateLimiter, RATE_LIMITS_TABLE } from '#db/rate-limits.ts'

// Rate limits are counted in PostgreSQL, so that every process and every instance of the portal keeps the
// same count: two limiters on two connection pools stand for two processes.

const other = new Sequelize(process.env.DATABASE_URL!, { dialect: 'postgres', logging: false })
afterAll(() => other.close())

const LIMIT = { keyPrefix: 'two-processes', points: 5, duration: 60 }

describe('a rate limit', () => {
  it('is one count for two processes', async () => {
    const [first, second] = [await rateLimiter(LIMIT), await rateLimiter(LIMIT, other)]
    expect(first).not.toBe(second)
    const address = '198.51.100.7'
    for (let i = 0; i < 3; i++) await first.consume(address)
    for (let i = 0; i < 2; i++) await second.consume(address)
    expect((await first.get(address))?.consumedPoints).toBe(5)
    // the sixth point is refused by either, with how long to wait
    const refusal = await first.consume(address).catch((error: unknown) => error)
    expect(refusal).toBeInstanceOf(RateLimiterRes)
    expect((refusal as RateLimiterRes).msBeforeNext).toBeGreaterThan(0)
    await expect(second.consume(address)).rejects.toBeInstanceOf(RateLimiterRes)
    // another key has a count of its own
    await expect(second.consume('198.51.100.8')).resolves.toMatchObject({ consumedPoints: 1 })
  })

  it('keeps its counts in the table the migrations made, under keys of a fixed length', async () => {
    const limiter = await rateLimiter(LIMIT)
    await limiter.consume('x'.repeat(1000))
    const [rows] = await (
      await sequelize()
    ).query(`SELECT key FROM ${RATE_LIMITS_TABLE} WHERE key LIKE 'two-processes:%' ORDER BY key`)
    expect(rows).toHaveLength(3)
    for (const { key } of rows as { key: string }[]) expect(key.length).toBeLessThan(64)
  })
})
