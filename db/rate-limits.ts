import { createHash } from 'node:crypto'
import { RateLimiterPostgres } from 'rate-limiter-flexible'
import type { Sequelize } from 'sequelize'
import { sequelize as connected } from './client.ts'

// Rate limits counted in PostgreSQL by rate-limiter-flexible, in the rate_limits table (migration 0016), so
// that every web worker of every instance sees the same counts. The limiters borrow connections from the
// app's pool. Each one deletes the rows that expired over an hour ago every five minutes (the library's
// own sweep, on a timer that keeps no process alive).

export const RATE_LIMITS_TABLE = 'rate_limits'

type RateLimitOptions = {
  /** what the counts of this limit are kept under, apart from every other limit's */
  keyPrefix: string
  /** how many points a key may consume in `duration` */
  points: number
  /** seconds from a key's first point until its count starts again */
  duration: number
}

/**
 * Keys are hashed: they hold what a client typed (a username, an address header) and the table's key is at
 * most 255 characters. The same key always lands on the same row, in every process.
 */
class HashedKeyLimiter extends RateLimiterPostgres {
  override getKey(key: string | number): string {
    return super.getKey(createHash('sha256').update(String(key)).digest('base64url'))
  }
}

/** A limit on the given database, or on the app's own when none is given. */
export async function rateLimiter(options: RateLimitOptions, on?: Sequelize): Promise<RateLimiterPostgres> {
  const sequelize = on ?? (await connected())
  let limiters = bySequelize.get(sequelize)
  if (!limiters) bySequelize.set(sequelize, (limiters = new Map()))
  const name = `${options.keyPrefix}:${options.points}/${options.duration}`
  let limiter = limiters.get(name)
  if (!limiter) {
    limiter = new HashedKeyLimiter({
      ...options,
      storeClient: sequelize,
      storeType: 'sequelize',
      tableName: RATE_LIMITS_TABLE,
      tableCreated: true,
      clearExpiredByTimeout: true,
    })
    limiters.set(name, limiter)
  }
  return limiter
}

// one limiter per limit and connection pool: a new pool (tests reconnect) gets limiters of its own
const bySequelize = new WeakMap<Sequelize, Map<string, RateLimiterPostgres>>()
