import { readFileSync } from 'node:fs'
import { Command } from 'commander'
import { fail } from './output.ts'

// The `portal` command: the same services and database as the app, never its routes.

// Each command's module loads the services it needs, and together they cost a command a lot of start-up
// time and memory; so only the module of the command being run is loaded (all of them for help or a
// command nobody knows, so that commander can list them or say what is wrong; none for --version).
type Register = (program: Command) => void
const assignCommands = () => import('./commands/assign.ts').then((m) => m.registerAssign)
const COMMANDS: Record<string, () => Promise<Register>> = {
  serve: () => import('./commands/serve.ts').then((m) => m.registerServe),
  db: () => import('./commands/db.ts').then((m) => m.registerDb),
  users: () => import('./commands/users.ts').then((m) => m.registerUsers),
  files: () => import('./commands/files.ts').then((m) => m.registerFiles),
  // assign.ts registers unassign beside assign
  assign: assignCommands,
  unassign: assignCommands,
  bridge: () => import('./commands/bridge.ts').then((m) => m.registerBridge),
  export: () => import('./commands/export.ts').then((m) => m.registerExport),
  exports: () => import('./commands/exports.ts').then((m) => m.registerExports),
  mail: () => import('./commands/mail.ts').then((m) => m.registerMail),
  jobs: () => import('./commands/jobs.ts').then((m) => m.registerJobs),
  worker: () => import('./commands/worker.ts').then((m) => m.registerWorker),
}

// A reader that stops early (`portal export access-log | head`) is no failure: stop quietly, as Unix tools do.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EPIPE') process.exit(0)
})
// For the benchmarks: the peak memory of the whole command, reported as it exits.
if (process.env.PORTAL_PRINT_PEAK_RSS)
  process.on('exit', () => process.stderr.write(`peak RSS: ${process.resourceUsage().maxRSS} kB\n`))
const { version } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }
const program = new Command()
  .name('portal')
  .description('Run and administer the learning portal.')
  .version(version, '-V, --version', 'print the portal version')
  .showHelpAfterError()
  .exitOverride((error) => process.exit(error.exitCode === 0 ? 0 : 2))

try {
  const name = process.argv[2]
  const wanted =
    name === '-V' || name === '--version'
      ? []
      : name !== undefined && Object.hasOwn(COMMANDS, name)
        ? [COMMANDS[name]]
        : [...new Set(Object.values(COMMANDS))]
  for (const register of await Promise.all(wanted.map((load) => load()))) register(program)
  await program.parseAsync(process.argv)
} catch (error) {
  fail(error)
}
