import type pg from 'pg'
import { describe, expect, it } from 'vitest'
import { query, sequelize } from '#db/client.ts'

// A connection of the portal's pool that errs before Sequelize listens to it (a database dying while the
// connection starts up) neither ends the process nor is lent out again.

describe('the pool’s connections', () => {
  it('hear their own errors from the start, and one that erred is dropped by the pool', async () => {
    const { connectionManager } = await sequelize()
    const { Client } = (connectionManager as unknown as { lib: typeof pg }).lib
    const bare = new Client({})
    // an 'error' event without a listener throws (and, unheard in a socket's callback, ends the process)
    expect(() =>
      bare.emit('error', new Error('terminating connection due to unexpected postmaster exit')),
    ).not.toThrow()

    const lent = (await connectionManager.getConnection({ type: 'read' })) as pg.ClientBase
    lent.emit('error', new Error('terminating connection due to unexpected postmaster exit'))
    connectionManager.releaseConnection(lent)
    const next = (await connectionManager.getConnection({ type: 'read' })) as pg.ClientBase
    expect(next).not.toBe(lent)
    connectionManager.releaseConnection(next)
    expect(await query({ text: 'SELECT 1 AS one', values: [] })).toEqual([{ one: 1 }])
  })
})
