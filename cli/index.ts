import { Command } from 'commander'
import { registerAssign } from './commands/assign.ts'
import { registerBridge } from './commands/bridge.ts'
import { registerDb } from './commands/db.ts'
import { registerExports } from './commands/exports.ts'
import { registerFiles } from './commands/files.ts'
import { registerServe } from './commands/serve.ts'
import { registerUsers } from './commands/users.ts'
import { fail } from './output.ts'

// The `portal` command: the same services and database as the app, never its routes.
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
registerExports(program)

try {
  await program.parseAsync(process.argv)
} catch (error) {
  fail(error)
}
