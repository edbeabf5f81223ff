import { fail } from './output.ts'
import { COMMANDS, portalProgram } from './program.ts'

// The `portal` command: the same services and database as the app, never its routes. Only the module of
// the command being run is loaded (all of them for help or a command nobody knows, so that commander can
// list them or say what is wrong; none for --version).

// A reader that stops early (`portal export access-log | head`) is no failure: stop quietly, as Unix tools do.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EPIPE') process.exit(0)
})
// For the benchmarks: the peak memory of the whole command, reported as it exits.
if (process.env.PORTAL_PRINT_PEAK_RSS)
  process.on('exit', () => process.stderr.write(`peak RSS: ${process.resourceUsage().maxRSS} kB\n`))

try {
  const name = process.argv[2]
  const wanted =
    name === '-V' || name === '--version'
      ? []
      : name !== undefined && Object.hasOwn(COMMANDS, name)
        ? [COMMANDS[name]]
        : undefined
  const program = await portalProgram(wanted)
  await program.parseAsync(process.argv)
} catch (error) {
  fail(error)
}
