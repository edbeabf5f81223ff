import { readFileSync } from 'node:fs'
import { Command } from 'commander'

// The `portal` command and the modules that register its subcommands: shared by the CLI's entry
// (cli/index.ts) and by what prints every command's help for docs/cli.md.

type Register = (program: Command) => void

// Each command's module loads the services it needs, and together they cost a command a lot of start-up
// time and memory; so the entry loads only the module of the command being run.
const assignCommands = () => import('./commands/assign.ts').then((m) => m.registerAssign)
export const COMMANDS: Record<string, () => Promise<Register>> = {
  serve: () => import('./commands/serve.ts').then((m) => m.registerServe),
  worker: () => import('./commands/worker.ts').then((m) => m.registerWorker),
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
  labs: () => import('./commands/labs.ts').then((m) => m.registerLabs),
  certificates: () => import('./commands/certificates.ts').then((m) => m.registerCertificates),
  reminders: () => import('./commands/reminders.ts').then((m) => m.registerReminders),
  sso: () => import('./commands/sso.ts').then((m) => m.registerSso),
  backup: () => import('./commands/backup.ts').then((m) => m.registerBackup),
  backups: () => import('./commands/backups.ts').then((m) => m.registerBackups),
  restore: () => import('./commands/restore.ts').then((m) => m.registerRestore),
}

const { version } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }

/** The `portal` program with the commands of `loaders` registered (every command when left out). */
export async function portalProgram(loaders = [...new Set(Object.values(COMMANDS))]): Promise<Command> {
  const program = new Command()
    .name('portal')
    .description('Run and administer the learning portal.')
    .version(version, '-V, --version', 'print the portal version')
    .showHelpAfterError()
    // a command's options before its subcommand, the subcommand's after it (`backup --to …`, `backup verify … --json`)
    .enablePositionalOptions()
    .exitOverride((error) => process.exit(error.exitCode === 0 ? 0 : 2))
  for (const register of await Promise.all(loaders.map((load) => load()))) register(program)
  return program
}
