import type pg from 'pg'
import { PgBoss } from 'pg-boss'
import type { Sequelize } from 'sequelize'
import { gaveUpQueue, QUEUE_NAMES, QUEUES, type QueueSpec } from './queues.ts'

// Part of every migration (db/migrate.ts), after the portal's own tables: the job library's schema
// installed or brought up to its version, each queue made or given its current settings from QUEUES,
// and a job given to every record that waits on work without one (a row left by the loops the portal
// ran before it had a job queue, or whose job was removed by hand).

/** A queue's settings as the library takes them; a setting left out of QUEUES is left out here too. */
function settingsOf(spec: QueueSpec) {
  return {
    retryLimit: spec.retryLimit,
    retryDelay: spec.retryDelay,
    retryBackoff: spec.retryBackoff,
    expireInSeconds: spec.expireInSeconds,
    deleteAfterSeconds: spec.keepSeconds,
    notify: true,
    ...(spec.retryDelayMax !== undefined ? { retryDelayMax: spec.retryDelayMax } : {}),
    ...(spec.heartbeatSeconds !== undefined ? { heartbeatSeconds: spec.heartbeatSeconds } : {}),
  }
}

export async function installJobQueue(sequelize: Sequelize): Promise<void> {
  const { connectionManager } = sequelize
  // one session: the library's schema script runs its own transactions and takes an advisory lock
  const client = (await connectionManager.getConnection({ type: 'write' })) as pg.ClientBase
  const library = new PgBoss({
    db: { executeSql: (text, values) => client.query(text, values as unknown[]) },
    migrate: true,
    supervise: false,
    schedule: false,
    registerInstance: false,
  })
  try {
    await library.start()
    for (const name of QUEUE_NAMES) {
      const spec = QUEUES[name]
      const deadLetter = spec.waitingRecords ? gaveUpQueue(name) : undefined
      if (deadLetter) await library.createQueue(deadLetter, { retryLimit: 5, deleteAfterSeconds: spec.keepSeconds })
      // creating a queue that is there already changes nothing; its settings are brought up to date after
      await library.createQueue(name, {
        ...settingsOf(spec),
        ...(deadLetter ? { deadLetter } : {}),
        ...(spec.policy ? { policy: spec.policy } : {}),
      })
      await library.updateQueue(name, {
        ...settingsOf(spec),
        // unset in QUEUES: unset on the queue too
        retryDelayMax: spec.retryDelayMax ?? null,
        heartbeatSeconds: spec.heartbeatSeconds ?? null,
        deadLetter: deadLetter ?? null,
      })
      // a job for every record that waits on work; a record whose job is kept already keeps that one
      if (spec.waitingRecords) {
        const { rows } = await client.query<{ id: string }>(spec.waitingRecords)
        for (let i = 0; i < rows.length; i += 1000)
          await library.insert(
            name,
            rows.slice(i, i + 1000).map(({ id }) => ({ id })),
          )
      }
    }
  } finally {
    await library.stop({ close: false, graceful: false })
    connectionManager.releaseConnection(client)
  }
}
