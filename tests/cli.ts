import { execFile } from 'node:child_process'
import path from 'node:path'
import { promisify } from 'node:util'

const root = path.resolve(import.meta.dirname, '..')
/** How long a command may run before it is ended (a failure of the test that ran it). */
const TIMEOUT_MS = 60_000

/**
 * The real `portal` command in a child process, on the calling test file's database (DATABASE_URL).
 * `input` is written to its standard input (a pipe), which is then closed.
 */
export async function portal(
  args: string[],
  env: Record<string, string | undefined> = {},
  options: { input?: string } = {},
) {
  try {
    const running = promisify(execFile)(process.execPath, [path.join(root, 'cli', 'bin.js'), ...args], {
      cwd: root,
      // a slow statement on a busy test machine would log a line on stderr, which the tests read
      env: { SLOW_SQL_MS: '60000', ...process.env, ...env },
      timeout: TIMEOUT_MS,
    })
    if (options.input !== undefined) running.child.stdin?.end(options.input)
    const { stdout, stderr } = await running
    return { code: 0, stdout, stderr }
  } catch (error) {
    const e = error as { code: number | null; killed?: boolean; stdout: string; stderr: string }
    // ended by the timeout: say so with what it printed, to tell a command that never finished from one whose
    // process hung after its last line (Node.js has a rare hang at exit)
    if (e.code === null)
      throw new Error(
        `portal ${args.join(' ')} did not exit within ${TIMEOUT_MS / 1000} s (killed: ${e.killed}). It printed:\n${e.stderr}${e.stdout}`,
      )
    return { code: e.code, stdout: e.stdout, stderr: e.stderr }
  }
}

/** An account as `portal users create` takes it; without a password, it is read from standard input. */
export type NewAccount = {
  role: string
  email: string
  password?: string
  firstName: string
  lastName: string
  userName: string
}

/** The arguments of `portal users create` for `account`. */
export const usersCreateArgs = (account: NewAccount) => [
  'users',
  'create',
  '--role',
  account.role,
  '--email',
  account.email,
  ...(account.password === undefined ? ['--password-stdin'] : ['--password', account.password]),
  '--first-name',
  account.firstName,
  '--last-name',
  account.lastName,
  '--username',
  account.userName,
]

/** The arguments of `portal exports schedule add` for a schedule writing to the folder `to`. */
export const scheduleAddArgs = (schedule: { name: string; cron: string; range: string; to: string }) => [
  'exports',
  'schedule',
  'add',
  '--name',
  schedule.name,
  '--cron',
  schedule.cron,
  '--range',
  schedule.range,
  '--to',
  schedule.to,
]
