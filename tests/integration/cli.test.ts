import { spawn } from 'node:child_process'
import { chmod, mkdtemp, readdir, rm } from 'node:fs/promises'
import http from 'node:http'
import net from 'node:net'
import os from 'node:os'
import path from 'node:path'
import { QueryTypes } from 'sequelize'
import { describe, expect, it } from 'vitest'
import { SYSTEM } from '#app/modules/auth/roles.ts'
import { login } from '#app/modules/auth/service.server.ts'
import { addSchedule } from '#app/modules/exports/service.server.ts'
import { jobLibrary } from '#app/modules/jobs/connection.server.ts'
import { enqueueInvitation } from '#app/modules/mail/queue.server.ts'
import { db } from '#db/client.ts'
import { portal } from '#tests/cli.ts'
import { makeCourse, makeDocument, makeLearner, makeStoredFile } from '#tests/factories.ts'
import { eventually, exitOf, workerProcess } from '#tests/jobs.ts'
import { readOutbox } from '#tests/outbox.ts'
import { freePort } from '#tests/setup/global.ts'

// The real `portal` command in a child process, on this test file's database (DATABASE_URL).

const root = path.resolve(import.meta.dirname, '..', '..')

const create = (overrides: Record<string, string> = {}) => {
  const options = {
    '--role': 'learner',
    '--email': 'ada@example.com',
    '--password': 'Engine-1843!',
    '--first-name': 'Augusta',
    '--last-name': 'Lovelace',
    '--username': 'adalove',
    ...overrides,
  }
  return portal(['users', 'create', ...Object.entries(options).flat()])
}

describe('portal users create', () => {
  it('makes a user who can sign in at once', async () => {
    const result = await create()
    expect(result).toMatchObject({ code: 0 })
    expect(result.stdout).toMatch(/^Created learner adalove <ada@example\.com> \(id [0-9a-f-]{36}\)\./)
    const { user } = await login({ email: 'adalove', password: 'Engine-1843!' })
    expect(user.roleId).toBe(2)
  })

  it('exits 1 with the reason for a duplicate, and 2 for invalid input', async () => {
    const duplicate = await create({ '--username': 'someoneelse', '--email': 'ADA@example.com' })
    expect(duplicate.code).toBe(1)
    expect(duplicate.stderr).toContain('portal: Email already exists.')

    const weak = await create({ '--username': 'weakling', '--email': 'weak@example.com', '--password': 'weak' })
    expect(weak.code).toBe(2)
    expect(weak.stderr).toMatch(/password: Password must be at least 8 characters/)

    const role = await create({ '--role': 'wizard', '--username': 'wizard', '--email': 'wizard@example.com' })
    expect(role.code).toBe(2)
    expect(role.stderr).toMatch(/Role must be one of superadmin, admin, coach or learner/)
  })

  it('prints the new account as one JSON object with --json', async () => {
    const result = await portal(
      ['users', 'create', '--role', 'learner', '--email', 'Grace@Example.com', '--password-stdin'].concat([
        '--first-name',
        'Grace',
        '--last-name',
        'Hopper',
        '--username',
        'ghopper',
        '--json',
      ]),
      {},
      { input: 'Compiler-1952!\n' },
    )
    expect(result).toMatchObject({ code: 0, stderr: '' })
    expect(JSON.parse(result.stdout)).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      role: 'learner',
      firstName: 'Grace',
      lastName: 'Hopper',
      userName: 'ghopper',
      email: 'grace@example.com',
    })
    expect(result.stdout.trim().split('\n')).toHaveLength(1)
  })

  it('without a terminal, exits 2 naming the missing options instead of prompting', async () => {
    const result = await portal(['users', 'create', '--role', 'coach'])
    expect(result.code).toBe(2)
    expect(result.stderr).toMatch(/missing --email, --password, --first-name, --last-name, --username/)
  })
})

describe('portal users create on a terminal', () => {
  it('asks for the missing values, then creates the user', async () => {
    // `script` (util-linux) gives the CLI a real pseudo-terminal; answers are typed as prompts appear
    const child = spawn('script', ['-qfec', `${process.execPath} cli/bin.js users create --role coach`, '/dev/null'], {
      cwd: root,
      env: { ...process.env, TERM: 'dumb' },
    })
    const answers: [RegExp, string][] = [
      [/Email/, 'prompted@example.com'],
      [/Password/, 'Prompted-1!'],
      [/First name/, 'Prudence'],
      [/Last name/, 'Prompt'],
      [/Username/, 'prudence'],
    ]
    let output = ''
    child.stdout.on('data', (data: Buffer) => {
      output += data.toString()
      const next = answers[0]
      if (next && next[0].test(output)) {
        answers.shift()
        output = ''
        child.stdin.write(`${next[1]}\r`)
      }
    })
    const code = await new Promise((resolve) => child.on('exit', resolve))
    expect(answers).toEqual([])
    expect(code).toBe(0)
    const { user } = await login({ email: 'prudence', password: 'Prompted-1!' })
    expect(user.roleId).toBe(4)
  })
})

describe('portal assign course', () => {
  it('assigns by email and title, says so when it was already assigned, and exits 1 for an unknown course', async () => {
    const learner = await makeLearner()
    await makeCourse({ title: 'Star Schemas' })
    const first = await portal(['assign', 'course', '--user', learner.email, '--course', 'star schemas'])
    expect(first).toMatchObject({ code: 0, stdout: `Assigned "Star Schemas" to ${learner.userName}.\n` })
    const again = await portal(['assign', 'course', '--user', learner.userName, '--course', 'Star Schemas'])
    expect(again.stdout).toBe(`${learner.userName} already has "Star Schemas".\n`)
    const unknown = await portal(['assign', 'course', '--user', learner.userName, '--course', 'Nope'])
    expect(unknown).toMatchObject({ code: 1, stderr: 'portal: No course with the id or title "Nope".\n' })
  })
})

describe('portal files sweep', () => {
  it('removes uploads nothing uses and keeps the ones in use', async () => {
    const unused = await makeStoredFile('document')
    const course = await makeCourse()
    const used = await makeDocument(course.id)
    const result = await portal(['files', 'sweep', '--older-than', '0'])
    expect(result).toMatchObject({ code: 0 })
    expect(result.stdout).toMatch(/^Removed \d+ unattached uploads?\.$/m)
    const { StoredFile } = await db()
    expect(await StoredFile.findByPk(unused.key)).toBeNull()
    expect(await StoredFile.findByPk(used.fileKey)).not.toBeNull()
    expect((await portal(['files', 'sweep', '--older-than', 'soon'])).code).toBe(2)
  })

  it('reports what it removed as JSON with --json', async () => {
    await makeStoredFile('document')
    await makeStoredFile('course_image')
    const result = await portal(['files', 'sweep', '--older-than', '0', '--json'])
    expect(result).toMatchObject({ code: 0, stderr: '' })
    expect(JSON.parse(result.stdout)).toEqual({ removed: 2, olderThanHours: 0 })
  })
})

describe('portal db prune-pings', () => {
  it('deletes the pings older than the window and keeps the newer ones', async () => {
    const learner = await makeLearner()
    const sql = (await db()).User.sequelize!
    await sql.query(
      `INSERT INTO access_log_pings (user_id, page_name, recorded_at)
       SELECT :id, 'My Courses', now() - make_interval(days => d) + interval '12 hours' FROM generate_series(1, 40) d`,
      { replacements: { id: learner.id } },
    )
    const count = async () =>
      Number(
        (
          (await sql.query('SELECT count(*) AS n FROM access_log_pings WHERE user_id = :id', {
            replacements: { id: learner.id },
            plain: true,
          })) as { n: string }
        ).n,
      )
    const dry = await portal(['db', 'prune-pings', '--older-than', '30d', '--dry-run', '--json'])
    expect(dry.code).toBe(0)
    expect(JSON.parse(dry.stdout)).toMatchObject({ deleted: 10 })
    expect(await count()).toBe(40)
    const pruned = await portal(['db', 'prune-pings', '--older-than', '30'])
    expect(pruned).toMatchObject({ code: 0, stderr: '' })
    expect(pruned.stdout).toMatch(/^Deleted 10 ping\(s\) recorded before \d{4}-/)
    expect(await count()).toBe(30)
    const wrong = await portal(['db', 'prune-pings', '--older-than', 'a while'])
    expect(wrong.code).toBe(2)
    expect(wrong.stderr).toContain('--older-than must be a number of days')
    expect((await portal(['db', 'prune-pings', '--older-than', '0'])).code).toBe(2)
  })
})

describe('portal db and help', () => {
  it('migrates (nothing to do on a migrated database) and refuses a seed without --demo', async () => {
    expect(await portal(['db', 'migrate'])).toMatchObject({ code: 0, stdout: 'The database is up to date.\n' })
    expect(await portal(['db', 'migrate', '--json'])).toMatchObject({ code: 0, stdout: '{"applied":[]}\n' })
    const seed = await portal(['db', 'seed'])
    expect(seed.code).toBe(2)
    expect(seed.stderr).toContain('pass --demo')
  })

  it('lists its commands, and exits 2 on an unknown one', async () => {
    const help = await portal(['--help'])
    expect(help.code).toBe(0)
    for (const command of ['serve', 'db', 'users']) expect(help.stdout).toContain(command)
    expect((await portal(['teleport'])).code).toBe(2)
  })
})

describe('portal serve', () => {
  it('exits non-zero with one clear line when the database cannot start', async () => {
    const dataDir = await mkdtemp(path.join(os.tmpdir(), 'portal-serve-'))
    await chmod(dataDir, 0o755)
    const blocker = net.createServer()
    const taken = await freePort()
    await new Promise<void>((r) => blocker.listen(taken, '127.0.0.1', r))
    try {
      const result = await portal(['serve', '--no-build', '--no-demo'], {
        DATABASE_URL: undefined,
        DATA_DIR: dataDir,
        EMBEDDED_PG_PORT: String(taken),
        PORT: String(await freePort()),
      })
      expect(result.code).toBe(1)
      const lines = result.stderr.trim().split('\n')
      expect(lines).toHaveLength(1)
      expect(lines[0]).toMatch(/^portal: Port \d+ for the embedded PostgreSQL is taken .* set EMBEDDED_PG_PORT/)
    } finally {
      blocker.close()
      await rm(dataDir, { recursive: true, force: true })
    }
  })
})

describe('portal serve --no-workers, and portal worker', () => {
  it('leaves due exports and queued mail to a worker elsewhere, which does them', { timeout: 300_000 }, async () => {
    const sql = (await db()).User.sequelize!
    const dir = `${await mkdtemp(path.join(os.tmpdir(), 'portal-serve-exports-'))}/`
    await addSchedule(SYSTEM, { name: 'offserver', cron: '0 2 * * *', range: 'yesterday', destination: dir })
    // made a month ago: its latest slot is due, and the first look of a worker claims it
    await sql.query("UPDATE export_schedules SET created_at = now() - interval '30 days'")
    const invitee = await makeLearner()
    await sql.query('UPDATE users SET password_hash = NULL WHERE id = :id', { replacements: { id: invitee.id } })
    await enqueueInvitation(invitee.id)
    // the minute's look, as the workers' scheduler would send it
    await jobLibrary().send('export-look', {})

    // builds the app first when the build is missing or stale, as `npm start` does
    const child = spawn(process.execPath, [path.join(root, 'cli', 'bin.js'), 'serve', '--no-demo', '--no-workers'], {
      cwd: root,
      env: { ...process.env, PORT: String(await freePort()) },
    })
    let output = ''
    const exited = new Promise<number | null>((resolve) => child.on('exit', resolve))
    const ready = new Promise<void>((resolve) => {
      const read = (data: Buffer) => {
        output += data.toString()
        if (output.includes('The portal is ready')) resolve()
      }
      child.stdout.on('data', read)
      child.stderr.on('data', read)
    })
    await Promise.race([ready, exited])
    expect(output).toContain('The portal is ready')
    child.kill('SIGTERM')
    expect(await exited).toBe(0)

    // the server neither exported nor mailed: the jobs are still there for a worker
    expect(await sql.query('SELECT id FROM export_runs', { type: QueryTypes.SELECT })).toEqual([])
    expect(await readdir(dir)).toEqual([])
    const mailsTo = async () =>
      (await readOutbox(process.env.DATA_DIR!)).filter((m) => JSON.stringify(m.to).includes(invitee.email))
    expect(await mailsTo()).toHaveLength(0)
    expect(output).toContain('Background jobs are not run here (--no-workers): run `portal worker` beside it.')

    // a worker on its own does them, and stops on SIGTERM
    const worker = workerProcess()
    await eventually(async () => (await mailsTo()).length === 1 && (await readdir(dir)).length === 1, 60_000)
    worker.child.kill('SIGTERM')
    expect(await exitOf(worker.child)).toEqual({ code: 0, signal: null })
    expect(worker.output.join('')).toContain('Background jobs: working')
    expect(await readdir(dir)).toEqual([expect.stringMatching(/^offserver_\d{4}-\d{2}-\d{2}_\d{4}-\d{2}-\d{2}\.csv$/)])
  })
})

describe('an error line of the CLI', () => {
  it('never shows the S3 keys or a password, even when the S3 server repeats them', async () => {
    const keyId = 'AKIAPORTALTESTKEY01'
    const secret = 'Sh0uld-Never-Be-Printed/abc+XYZ'
    // an S3-compatible server (or a proxy in front of one) whose refusal quotes what it was sent
    const s3 = http.createServer((request, response) => {
      request.resume()
      response.writeHead(403, { 'content-type': 'application/xml' })
      response.end(
        `<?xml version="1.0" encoding="UTF-8"?><Error><Code>AccessDenied</Code><Message>Key ${keyId} with secret ${secret} ` +
          `may not write here (via http://relay:Relay-Pass-9@proxy.internal/)</Message><RequestId>1</RequestId></Error>`,
      )
    })
    const port = await freePort()
    await new Promise<void>((resolve) => s3.listen(port, '127.0.0.1', resolve))
    try {
      const result = await portal(['export', 'access-log', '--out', 's3://reports-bucket/access.csv'], {
        S3_ENDPOINT: `http://127.0.0.1:${port}`,
        S3_FORCE_PATH_STYLE: '1',
        S3_ACCESS_KEY_ID: keyId,
        S3_SECRET_ACCESS_KEY: secret,
      })
      expect(result.code).toBe(1)
      expect(result.stderr).toBe(
        'portal: Uploading to s3://reports-bucket/access.csv failed: Key [hidden] with secret [hidden] ' +
          'may not write here (via http://[hidden]@proxy.internal/)\n',
      )
    } finally {
      s3.close()
    }
  })
})
