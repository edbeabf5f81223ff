import type { Command } from 'commander'
import { CONSOLE_LOG, startJobWorkers } from '#app/modules/jobs/runner.server.ts'
import { getEnv } from '#app/utils/env.server.ts'
import { connect, disconnect } from '#db/client.ts'
import { migrate } from '#db/migrate.ts'

// `portal worker`: the background jobs without the web server, so that web and background work scale
// apart (`portal serve --no-workers` on the web machines). It runs until SIGTERM or SIGINT, then gives
// the jobs in hand DRAIN_SECONDS to finish and hands back to the queue those that have not.

export function registerWorker(program: Command) {
  program
    .command('worker')
    .description(
      'run the background jobs (queued mail, imports, scheduled exports and backups, housekeeping) until stopped',
    )
    .action(async () => work())
}

async function work() {
  const env = getEnv()
  // beside a running `portal serve` on the embedded database, that server is used; otherwise this one
  // starts it, and stops it itself once the jobs in hand are done
  const { sequelize } = await connect({ stoppedBy: 'caller', log: (line) => console.error(line) })
  const applied = await migrate(sequelize)
  if (applied.length) console.error(`Database migrated (${applied.join(', ')}).`)
  const workers = await startJobWorkers({ log: CONSOLE_LOG })
  let stopping = false
  const stop = async () => {
    if (stopping) return
    stopping = true
    console.error(`Stopping: the jobs in hand finish or go back to the queue (at most ${env.DRAIN_SECONDS} s).`)
    await workers.stop(env.DRAIN_SECONDS)
    await disconnect()
    process.exit(0)
  }
  process.on('SIGINT', () => void stop())
  process.on('SIGTERM', () => void stop())
}
