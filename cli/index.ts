import { Command } from 'commander'
import { registerAssign } from './commands/assign.ts'
import { registerBridge } from './commands/bridge.ts'
import { registerDb } from './commands/db.ts'
import { registerExport } from './commands/export.ts'
import { registerExports } from './commands/exports.ts'
import { registerFiles } from './commands/files.ts'
import { registerServe } from './commands/serve.ts'
import { registerUsers } from './commands/users.ts'
import { fail } from './output.ts'

// The `portal` command: the same services and database as the app, never its routes.

// A reader that stops early (`portal export access-log | head`) is no failure: stop quietly, as Unix tools do.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EPIPE') process.exit(0)
})
// For the benchmarks: the peak memory of the whole command, reported as it exits.
if (process.env.PORTAL_PRINT_PEAK_RSS)
  process.on('exit', () => process.stderr.write(`peak RSS: ${process.resourceUsage().maxRSS} kB\n`))
const program = new Command()
  .name('portal')
  .description('Run and administer the learning portal.')
  .showHelpAfterError()
  .exitOverride((error) => process.exit(error.exitCode === 0 ? 0 : 2))

registerServe(program)
registerDb(program)
registerUsers(program)
registerFiles(program)
registerAssign(program)
registerBridge(program)
registerExport(program)
registerExports(program)

try {
  await program.parseAsync(process.argv)
} catch (error) {
  fail(error)
}
