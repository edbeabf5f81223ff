import type { Command } from 'commander'
import { connect, disconnect } from '#db/client.ts'
import { migrate } from '#db/migrate.ts'
import { seedDemoOnce } from '#db/seeds/demo.ts'
import { printDemoAccounts } from '../demo.ts'
import { UsageError } from '../output.ts'

export function registerDb(program: Command) {
  const db = program.command('db').description('database tasks (same DATA_DIR / DATABASE_URL rules as the app)')

  db.command('migrate')
    .description('apply pending migrations')
    .action(async () => {
      try {
        const { sequelize } = await connect()
        const applied = await migrate(sequelize)
        console.log(applied.length ? `Applied ${applied.join(', ')}.` : 'The database is up to date.')
      } finally {
        await disconnect()
      }
    })

  db.command('seed')
    .description('add the demo courses, program and accounts (once per database)')
    .option('--demo', 'the demo content')
    .action(async (options: { demo?: boolean }) => {
      if (!options.demo) throw new UsageError('nothing to seed: pass --demo for the demo content.')
      try {
        const { sequelize } = await connect()
        await migrate(sequelize)
        const { seeded } = await seedDemoOnce((line) => console.log(line))
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
}
