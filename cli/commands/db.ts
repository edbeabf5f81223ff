import type { Command } from 'commander'
import { SYSTEM } from '#app/modules/auth/roles.ts'
import { prunePings } from '#app/modules/progress/retention.server.ts'
import { connect, disconnect } from '#db/client.ts'
import { migrate } from '#db/migrate.ts'
import { DEMO_ACCOUNTS, seedDemoOnce } from '#db/seeds/demo.ts'
import { printDemoAccounts } from '../demo.ts'
import { UsageError } from '../output.ts'
import { progressLine } from '../progress.ts'

export function registerDb(program: Command) {
  const db = program.command('db').description('database tasks (same DATA_DIR / DATABASE_URL rules as the app)')

  db.command('migrate')
    .description('apply pending migrations')
    .option('--json', 'print { applied } (the migrations applied now) as JSON')
    .action(async (options: { json?: boolean }) => {
      try {
        const { sequelize } = await connect()
        const applied = await migrate(sequelize)
        if (options.json) console.log(JSON.stringify({ applied }))
        else console.log(applied.length ? `Applied ${applied.join(', ')}.` : 'The database is up to date.')
      } finally {
        await disconnect()
      }
    })

  db.command('seed')
    .description('add the demo courses, program and accounts (once per database)')
    .option('--demo', 'the demo content')
    .option('--json', 'print { seeded, accounts } as JSON (accounts: the demo sign-ins, when seeded now)')
    .action(async (options: { demo?: boolean; json?: boolean }) => {
      if (!options.demo) throw new UsageError('nothing to seed: pass --demo for the demo content.')
      try {
        const { sequelize } = await connect()
        await migrate(sequelize)
        // with --json, standard output holds the JSON alone
        const { seeded } = await seedDemoOnce((line) => (options.json ? console.error(line) : console.log(line)))
        if (options.json) {
          const accounts = seeded ? DEMO_ACCOUNTS.map(({ role, userName, email }) => ({ role, userName, email })) : []
          return console.log(JSON.stringify({ seeded, accounts }))
        }
        console.log(
          seeded
            ? 'Demo content added.'
            : 'Nothing seeded: this database already holds the demo content or data of its own.',
        )
        if (seeded) printDemoAccounts()
      } finally {
        await disconnect()
      }
    })

  db.command('prune-pings')
    .description('delete page pings older than a retention window (nothing reads them once a day is over)')
    .requiredOption('--older-than <age>', 'how old a ping must be to go, in days: 180 or 180d')
    .option('--dry-run', 'only count what would be deleted')
    .option('--json', 'print { deleted, before } as JSON')
    .action(async (options: { olderThan: string; dryRun?: boolean; json?: boolean }) => {
      const age = /^(\d+)d?$/.exec(options.olderThan.trim())
      if (!age)
        throw new UsageError(`--older-than must be a number of days such as 180 or 180d, not "${options.olderThan}".`)
      const progress = progressLine('Pruning pings:', 'deleted')
      try {
        const result = await prunePings(
          SYSTEM,
          { olderThanDays: Number(age[1]), dryRun: Boolean(options.dryRun) },
          (deleted) => progress.update(deleted),
        )
        progress.stop()
        if (options.json) console.log(JSON.stringify(result))
        else
          console.log(
            `${options.dryRun ? 'Would delete' : 'Deleted'} ${result.deleted} ping(s) recorded before ${result.before}.`,
          )
      } finally {
        progress.stop()
        await disconnect()
      }
    })
}
