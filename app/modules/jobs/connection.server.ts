import type pg from 'pg'
import { PgBoss, type Db } from 'pg-boss'
import type { Transaction } from 'sequelize'
import { withConnection } from '#db/client.ts'
import type { QueueName } from './queues.ts'

// How the portal reaches the job library's tables (schema `pgboss`) outside a worker: through its own
// connection pool, or inside a caller's transaction, so that a record and the job that works on it are
// written together or not at all.

/** The pg client a Sequelize transaction runs on (Sequelize keeps it as `connection`). */
function clientOf(transaction: Transaction): pg.ClientBase {
  return (transaction as unknown as { connection: pg.ClientBase }).connection
}

/** The job library's statements, run in `transaction` when given, else on a pooled connection. */
function jobDatabase(transaction?: Transaction): Db {
  return {
    executeSql: (text, values) =>
      transaction
        ? clientOf(transaction).query(text, values as unknown[])
        : withConnection((client) => client.query(text, values as unknown[])),
  }
}

let library: PgBoss | undefined

/**
 * The job library for sending, retrying and cancelling jobs from this process (a web request, a CLI
 * command). It is never started: starting is what a worker does (runner.server.ts), and unstarted it
 * holds no timer and no connection of its own, only statements run on the pool.
 */
export function jobLibrary(): PgBoss {
  library ??= new PgBoss({
    db: jobDatabase(),
    supervise: false,
    schedule: false,
    migrate: false,
    registerInstance: false,
  })
  return library
}

/**
 * Queue the job that works on a record, with the record's id as the job's id: queueing it again while
 * the job is kept does nothing. In `transaction`, the job exists exactly when the record does.
 */
export async function enqueueJob(queue: QueueName, id: string, transaction?: Transaction): Promise<void> {
  await jobLibrary().send(queue, {}, { id, db: jobDatabase(transaction) })
}

/** The same for many records at once (a batch of an import): one statement per thousand. */
export async function enqueueJobs(queue: QueueName, ids: string[], transaction?: Transaction): Promise<void> {
  for (let i = 0; i < ids.length; i += 1000)
    await jobLibrary().insert(
      queue,
      ids.slice(i, i + 1000).map((id) => ({ id })),
      { db: jobDatabase(transaction) },
    )
}
