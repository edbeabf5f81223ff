import { spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { mkdtemp, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { simpleParser } from 'mailparser'
import { QueryTypes } from 'sequelize'
import { SMTPServer, type SMTPServerOptions } from 'smtp-server'
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest'
import { createPasswordLink, passwordLinkIsValid } from '#app/modules/auth/password-links.server.ts'
import { ROLE, SYSTEM } from '#app/modules/auth/roles.ts'
import { jobLibrary } from '#app/modules/jobs/connection.server.ts'
import { QUEUES } from '#app/modules/jobs/queues.ts'
import {
  enqueueInvitation,
  enqueueInvitations,
  mailJobs,
  mailQueueStatus,
  MAX_ATTEMPTS,
  sendQueuedMail,
  type MailClock,
} from '#app/modules/mail/queue.server.ts'
import { resetMailTransport } from '#app/modules/mail/service.server.ts'
import { getEnv, resetEnvCache } from '#app/utils/env.server.ts'
import { sequelize } from '#db/client.ts'
import { portal } from '#tests/cli.ts'
import { makeAdmin, makeCoach, makeLearner, makeUser } from '#tests/factories.ts'
import { eventually, jobOf, runNow, startWorkers, stopWorkers, tryOf } from '#tests/jobs.ts'
import { readOutbox, resetTokenIn } from '#tests/outbox.ts'
import { freePort } from '#tests/setup/global.ts'

// The mail queue on a real database, through the real mail path: the .eml outbox (SMTP_URL unset), a
// loopback SMTP server, or an SMTP address where nothing listens. A try of a mail's job is called
// directly where time matters (the rate is kept by a clock passed in, never waited for), and real
// workers send where what matters is that each mail goes once.

const MINUTE = 60_000

type QueueRow = {
  id: string
  status: string
  attempts: number
  last_error: string | null
  sent_at: Date | null
  claimed_at: Date | null
  claimed_by: string | null
}

async function run<T extends object>(text: string, bind: unknown[] = []) {
  return (await sequelize()).query<T>(text, { bind, type: QueryTypes.SELECT })
}

const rowsOf = (userId: string) =>
  run<QueueRow>('SELECT * FROM mail_queue WHERE user_id = $1 ORDER BY created_at', [userId])

/** An account without a password: it signs in only through its invitation. */
async function invitee() {
  const user = await makeUser({ firstName: 'Ivy' })
  await run('UPDATE users SET password_hash = NULL WHERE id = $1 RETURNING id', [user.id])
  return user
}

/** The mail row of a user's latest invitation (its id is its job's). */
const mailOf = async (userId: string) => (await rowsOf(userId)).at(-1) as QueueRow

const mailsTo = async (email: string) =>
  (await readOutbox(getEnv().DATA_DIR)).filter((mail) => JSON.stringify(mail.to).includes(email))

/** A clock that starts shortly ahead of the real one and moves only when a try waits on it. */
function testClock(start = new Date(Date.now() + 1000)) {
  const clock: MailClock & { at: Date; waits: number[] } = {
    at: start,
    waits: [] as number[],
    now: () => clock.at,
    wait: async (ms: number) => {
      clock.waits.push(ms)
      clock.at = new Date(clock.at.getTime() + ms)
    },
  }
  return clock
}

function useSmtp(url: string | undefined) {
  if (url) process.env.SMTP_URL = url
  else delete process.env.SMTP_URL
  resetEnvCache()
  resetMailTransport()
}

const servers: SMTPServer[] = []
async function smtpServer(options: SMTPServerOptions) {
  const port = await freePort()
  const server = new SMTPServer({ authOptional: true, disabledCommands: ['STARTTLS'], logger: false, ...options })
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve))
  servers.push(server)
  return `smtp://127.0.0.1:${port}`
}

beforeEach(async () => {
  await run('DELETE FROM mail_queue RETURNING id')
  delete process.env.MAIL_RATE_PER_MINUTE
  useSmtp(undefined)
})

afterEach(async () => {
  await stopWorkers()
  for (const server of servers.splice(0)) await new Promise<void>((resolve) => server.close(() => resolve()))
})

afterAll(() => {
  delete process.env.MAIL_RATE_PER_MINUTE
  useSmtp(undefined)
})

describe('enqueueInvitation', () => {
  it('queues nothing, and no job, when the transaction that queued it rolls back', async () => {
    const user = await invitee()
    const sql = await sequelize()
    let id = ''
    await expect(
      sql.transaction(async (transaction) => {
        expect(await enqueueInvitation(user.id, transaction)).toBe(true)
        // the queued row is visible inside the transaction …
        const [row] = await sql.query<{ id: string }>('SELECT id FROM mail_queue WHERE user_id = $1', {
          bind: [user.id],
          type: QueryTypes.SELECT,
          transaction,
        })
        id = row.id
        throw new Error('the import failed')
      }),
    ).rejects.toThrow('the import failed')
    // … and gone with it, its job too
    expect(id).not.toBe('')
    expect(await rowsOf(user.id)).toEqual([])
    expect(await jobOf(id)).toBeUndefined()
  })

  it('keeps a row queued in a committed transaction, with its job', async () => {
    const user = await invitee()
    await (await sequelize()).transaction((transaction) => enqueueInvitation(user.id, transaction))
    const row = await mailOf(user.id)
    expect(row).toMatchObject({ status: 'pending', attempts: 0, claimed_by: null })
    expect(await jobOf(row.id)).toMatchObject({ name: 'mail', state: 'created' })
  })

  it('queues one invitation per user while one is waiting, and a new one once it is sent', async () => {
    const user = await invitee()
    expect(await enqueueInvitation(user.id)).toBe(true)
    expect(await enqueueInvitation(user.id)).toBe(false)
    const other = await invitee()
    expect(await enqueueInvitations([other.id, other.id, user.id])).toBe(1)
    expect(await rowsOf(user.id)).toHaveLength(1)
    expect(await rowsOf(other.id)).toHaveLength(1)

    await sendQueuedMail(tryOf((await mailOf(user.id)).id))
    expect(await enqueueInvitation(user.id)).toBe(true)
    expect((await rowsOf(user.id)).map((r) => r.status)).toEqual(['sent', 'pending'])
    expect(await jobOf((await mailOf(user.id)).id)).toMatchObject({ state: 'created' })
  })

  it('refuses an id that is not a user id, and drops the mail of a removed account', async () => {
    await expect(enqueueInvitation('not-an-id')).rejects.toMatchObject({ status: 400 })
    const user = await invitee()
    await enqueueInvitation(user.id)
    const { id } = await mailOf(user.id)
    await run('DELETE FROM users WHERE id = $1 RETURNING id', [user.id])
    expect(await rowsOf(user.id)).toEqual([])
    // its job finds nothing to send
    await sendQueuedMail(tryOf(id))
    expect(await mailsTo(user.email)).toHaveLength(0)
  })
})

describe('a try of a mail', () => {
  it('sends the invitation through the mail path with a link that works, and keeps no link in the database', async () => {
    const user = await invitee()
    await enqueueInvitation(user.id)
    const { id } = await mailOf(user.id)
    const clock = testClock()

    await sendQueuedMail(tryOf(id), clock)

    const [mail, ...more] = await mailsTo(user.email)
    expect(more).toHaveLength(0)
    expect(mail.subject).toMatch(/^Welcome to .+: set your password$/)
    expect(mail.text).toContain('Hello Ivy,')
    expect(mail.text).toContain('expires in 7 days')
    const token = resetTokenIn(mail)
    expect(token).not.toBe('')
    expect(mail.text).toContain(`http://portal.test/reset-Password/${token}`)
    expect(await passwordLinkIsValid(token)).toBe(true)

    const row = await mailOf(user.id)
    expect(row).toMatchObject({ status: 'sent', attempts: 1, claimed_by: null, last_error: null })
    expect(row.sent_at?.getTime()).toBe(clock.at.getTime())
    const stored = await run<{ text: string }>(
      `SELECT row_to_json(q)::text AS text FROM mail_queue q
       UNION ALL SELECT row_to_json(j)::text FROM pgboss.job j WHERE j.id = $1`,
      [id],
    )
    expect(stored).toHaveLength(2)
    expect(stored.map((s) => s.text).join()).not.toContain(token)

    // a second try of the same job (the queue lost track of the first) sends nothing
    await sendQueuedMail(tryOf(id, { retryCount: 1 }), clock)
    expect(await mailsTo(user.email)).toHaveLength(1)
  })

  it('records a failure in one line without credentials and throws it; the last try fails the mail', async () => {
    const closed = await freePort()
    useSmtp(`smtp://mailer:Sup3r-secret-pw@127.0.0.1:${closed}`)
    const user = await invitee()
    await enqueueInvitation(user.id)
    const { id } = await mailOf(user.id)

    await expect(sendQueuedMail(tryOf(id))).rejects.toThrow(/ECONNREFUSED/)
    let row = await mailOf(user.id)
    expect(row).toMatchObject({ status: 'pending', attempts: 1, claimed_by: null })
    expect(row.last_error).toMatch(/ECONNREFUSED/)
    expect(row.last_error).not.toMatch(/[\r\n]/)
    expect(row.last_error).not.toContain('Sup3r-secret-pw')

    await expect(sendQueuedMail(tryOf(id, { retryCount: MAX_ATTEMPTS - 1, lastTry: true }))).rejects.toThrow()
    row = await mailOf(user.id)
    expect(row).toMatchObject({ status: 'failed', attempts: 2, claimed_by: null })
    // a failed mail is never sent by a stray try
    useSmtp(undefined)
    await sendQueuedMail(tryOf(id, { retryCount: MAX_ATTEMPTS }))
    expect(await mailsTo(user.email)).toHaveLength(0)
  })

  it('is tried 8 times in all, 1, 2, 4 … minutes apart and at most an hour, by the queue it is in', async () => {
    expect(MAX_ATTEMPTS).toBe(8)
    const queue = await jobLibrary().getQueue('mail')
    expect(queue).toMatchObject({
      retryLimit: 7,
      retryDelay: 60,
      retryBackoff: true,
      retryDelayMax: 3600,
      heartbeatSeconds: QUEUES.mail.heartbeatSeconds,
      deadLetter: 'mail-gave-up',
    })
  })

  it('takes over a mail whose worker died mid-send, with a new link that replaces the old one', async () => {
    const user = await invitee()
    await enqueueInvitation(user.id)
    const { id } = await mailOf(user.id)
    // an earlier try claimed it, made its link, and its process died before the mail went out
    const orphanToken = await createPasswordLink(user.id, 'invite')
    await run(
      `UPDATE mail_queue SET status = 'sending', attempts = 1, claimed_by = $2, claimed_at = now() - interval '5 minutes'
        WHERE id = $1 RETURNING id`,
      [id, `${id}:0`],
    )

    await sendQueuedMail(tryOf(id, { retryCount: 1 }))

    const [mail] = await mailsTo(user.email)
    const token = resetTokenIn(mail)
    expect(token).not.toBe(orphanToken)
    expect(await passwordLinkIsValid(token)).toBe(true)
    expect(await passwordLinkIsValid(orphanToken)).toBe(false)
    expect(await mailOf(user.id)).toMatchObject({ status: 'sent', attempts: 2, claimed_by: null })
  })

  it('keeps to MAIL_RATE_PER_MINUTE: at 2 a minute, the third and fifth mails wait for the next minute', async () => {
    process.env.MAIL_RATE_PER_MINUTE = '2'
    resetEnvCache()
    const users = await Promise.all(Array.from({ length: 5 }, invitee))
    await enqueueInvitations(users.map((u) => u.id))
    const clock = testClock()
    const t0 = clock.at.getTime()

    for (const user of users) await sendQueuedMail(tryOf((await mailOf(user.id)).id), clock)

    const claimed = await run<{ claimed_at: Date }>('SELECT claimed_at FROM mail_queue ORDER BY claimed_at')
    expect(claimed.map((r) => (r.claimed_at.getTime() - t0) / 1000)).toEqual([0, 0, 60, 60, 120])
    expect(clock.waits).toEqual([MINUTE, MINUTE])
    for (const user of users) expect(await mailsTo(user.email)).toHaveLength(1)
  })

  it('counts the claims of another worker that is claiming at that very moment', async () => {
    process.env.MAIL_RATE_PER_MINUTE = '2'
    resetEnvCache()
    const users = await Promise.all(Array.from({ length: 3 }, invitee))
    await enqueueInvitations(users.map((u) => u.id))
    const clock = testClock()
    // another worker, in the middle of its claim: it holds the claim lock and has taken two rows
    const sql = await sequelize()
    const other = await sql.transaction()
    await sql.query('SELECT pg_advisory_xact_lock(7305010)', { transaction: other })
    await sql.query(
      `UPDATE mail_queue SET status = 'sending', attempts = 1, claimed_at = $1, claimed_by = 'other:0'
        WHERE user_id IN ($2, $3)`,
      { bind: [clock.at, users[0].id, users[1].id], transaction: other },
    )
    const stop = new AbortController()
    let settled = false
    const mine = sendQueuedMail(tryOf((await mailOf(users[2].id)).id, { signal: stop.signal }), {
      now: clock.now,
      // told to wait: the budget is spent; the worker stops here instead
      wait: async (ms) => {
        clock.waits.push(ms)
        stop.abort()
      },
    }).finally(() => (settled = true))
    const waiting = async () =>
      (
        await run<{ n: number }>("SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND NOT granted")
      )[0].n > 0
    // until this try waits for the other's claim (a build without the lock finishes instead)
    while (!settled && !(await waiting())) await new Promise((resolve) => setTimeout(resolve, 20))
    await other.commit()

    await expect(mine).rejects.toThrow()
    expect(clock.waits).toEqual([MINUTE])
    expect(await mailOf(users[2].id)).toMatchObject({ status: 'pending', attempts: 0, claimed_at: null })
    expect(await mailsTo(users[2].email)).toHaveLength(0)
  })

  it('drops an invitation whose account has a password by the time it is sent', async () => {
    const user = await invitee()
    await enqueueInvitation(user.id)
    await run("UPDATE users SET password_hash = 'x' WHERE id = $1 RETURNING id", [user.id])
    await sendQueuedMail(tryOf((await mailOf(user.id)).id))
    expect(await mailsTo(user.email)).toHaveLength(0)
    expect(await rowsOf(user.id)).toMatchObject([
      { status: 'cancelled', last_error: 'The account already has a password.' },
    ])
  })

  it('is failed when its job is given up, cancelled when its job is, and waits again when retried', async () => {
    const [gone, cancelled] = [await invitee(), await invitee()]
    await enqueueInvitations([gone.id, cancelled.id])
    await mailJobs.gaveUp?.((await mailOf(gone.id)).id, 'The worker running it stopped answering.')
    await mailJobs.cancelled?.((await mailOf(cancelled.id)).id)
    expect(await mailOf(gone.id)).toMatchObject({
      status: 'failed',
      last_error: 'The worker running it stopped answering.',
    })
    expect(await mailOf(cancelled.id)).toMatchObject({ status: 'cancelled', last_error: 'Cancelled by an operator.' })
    await mailJobs.reopened?.((await mailOf(gone.id)).id)
    expect(await mailOf(gone.id)).toMatchObject({ status: 'pending' })
  })
})

describe('the workers', () => {
  it('send each mail once when two workers run at the same time', async () => {
    const users = await Promise.all(Array.from({ length: 12 }, invitee))
    await enqueueInvitations(users.map((u) => u.id))

    await Promise.all([startWorkers(['mail']), startWorkers(['mail'])])
    await eventually(async () => (await run('SELECT id FROM mail_queue WHERE status = $1', ['sent'])).length === 12)

    for (const user of users) expect(await mailsTo(user.email)).toHaveLength(1)
    const statuses = await run<{ status: string; attempts: number }>('SELECT status, attempts FROM mail_queue')
    expect(statuses.every((s) => s.status === 'sent' && s.attempts === 1)).toBe(true)
  })

  it('try a mail the SMTP server refused again, and send it once the server takes it', async () => {
    let refuse = true
    const received: string[] = []
    useSmtp(
      await smtpServer({
        onRcptTo(address, _session, callback) {
          if (!refuse) return callback()
          callback(Object.assign(new Error('Mailbox busy\r\ntry again later'), { responseCode: 450 }))
        },
        onData(stream, _session, callback) {
          let raw = ''
          stream.on('data', (chunk: Buffer) => (raw += chunk.toString()))
          stream.on('end', () => {
            received.push(raw)
            callback()
          })
        },
      }),
    )
    const user = await invitee()
    await enqueueInvitation(user.id)
    const { id } = await mailOf(user.id)
    await startWorkers(['mail'])

    const waiting = await eventually(async () => {
      const job = await jobOf(id)
      return job?.state === 'retry' && job
    })
    expect(waiting.output).toMatchObject({ message: expect.stringMatching(/450/) })
    expect(JSON.stringify(waiting.output)).not.toMatch(/stack|\\n/)
    const row = await mailOf(user.id)
    expect(row).toMatchObject({ status: 'pending', attempts: 1 })
    expect(row.last_error).toMatch(/450/)
    expect(row.last_error).not.toMatch(/[\r\n]/)
    expect(received).toHaveLength(0)

    refuse = false
    // the minute the queue waits before the second try, passed
    await runNow(id)
    await eventually(async () => (await jobOf(id))?.state === 'completed')
    expect(received).toHaveLength(1)
    const parsed = await simpleParser(received[0])
    expect(await passwordLinkIsValid(resetTokenIn(parsed))).toBe(true)
    expect(await rowsOf(user.id)).toMatchObject([{ status: 'sent', attempts: 2, last_error: null }])
  })
})

describe('mailQueueStatus', () => {
  it('shows the admin side counts and the latest rows, and refuses learners', async () => {
    const [sent, waiting] = [await invitee(), await invitee()]
    await enqueueInvitation(sent.id)
    await sendQueuedMail(tryOf((await mailOf(sent.id)).id))
    await enqueueInvitation(waiting.id)

    await expect(mailQueueStatus(await makeLearner())).rejects.toMatchObject({ status: 403 })
    for (const actor of [SYSTEM, await makeAdmin(), await makeCoach()]) {
      const status = await mailQueueStatus(actor)
      expect(status.counts).toEqual({ pending: 1, sending: 0, sent: 1, failed: 0, cancelled: 0 })
      expect(status.rows.map((r) => [r.email, r.status])).toEqual([
        [waiting.email, 'pending'],
        [sent.email, 'sent'],
      ])
    }
    const only = await mailQueueStatus({ id: null, roleId: ROLE.admin }, { status: 'sent' })
    expect(only.rows).toHaveLength(1)
    expect(only.rows[0]).toEqual({
      id: expect.any(String),
      kind: 'invitation',
      userId: sent.id,
      email: sent.email,
      userName: sent.userName,
      status: 'sent',
      attempts: 1,
      lastError: null,
      createdAt: expect.any(String),
      sentAt: expect.any(String),
      claimedAt: expect.any(String),
    })
    await expect(mailQueueStatus(SYSTEM, { status: 'lost' })).rejects.toMatchObject({
      issues: [expect.objectContaining({ path: ['status'] })],
    })
  })
})

// each command is a child process starting Node and tsx: a test of several needs more than the default time
const SLOW = { timeout: 180_000 }

describe('portal mail', () => {
  it('lists the queue as JSON and as a table, and exits 2 on wrong input', SLOW, async () => {
    const user = await invitee()
    await enqueueInvitation(user.id)

    const listed = await portal(['mail', 'queue', '--json'])
    expect(listed.code).toBe(0)
    const status = JSON.parse(listed.stdout) as Awaited<ReturnType<typeof mailQueueStatus>>
    expect(status).toMatchObject({
      counts: { pending: 1, sending: 0, sent: 0, failed: 0, cancelled: 0 },
      rows: [{ email: user.email, status: 'pending', attempts: 0, kind: 'invitation' }],
    })

    await sendQueuedMail(tryOf((await mailOf(user.id)).id))
    const table = await portal(['mail', 'queue', '--status', 'sent'])
    expect(table.code).toBe(0)
    expect(table.stdout).toMatch(/^PENDING\s+SENDING\s+SENT\s+FAILED\s+CANCELLED\n0\s+0\s+1\s+0\s+0\n/)
    expect(table.stdout).toContain(user.email)

    const wrong = await portal(['mail', 'queue', '--status', 'lost'])
    expect(wrong).toMatchObject({ code: 2, stdout: '' })
    expect(wrong.stderr).toContain('--status: Status must be one of pending, sending, sent, failed, cancelled.')
  })
})

describe('an import killed part-way, then the mail sent by two workers', () => {
  it(
    'queues one invitation per committed account and delivers each once, none for rows never committed',
    SLOW,
    async () => {
      // large enough for many batches of 1000 rows: the import is killed long before its end
      const total = 40_000
      const stamp = randomBytes(4).toString('hex')
      const dir = await mkdtemp(path.join(os.tmpdir(), 'portal-killed-import-'))
      const file = path.join(dir, 'people.csv')
      const rows = Array.from({ length: total }, (_, i) => `Ivana,Rowe,inv${i}.${stamp}@example.com,inv${i}x${stamp}`)
      await writeFile(file, ['firstName,lastName,email,userName', ...rows].join('\n'))
      const ours = `%.${stamp}@example.com`
      const imported = () =>
        run<{ id: string; email: string }>('SELECT id, email FROM users WHERE email LIKE $1', [ours])
      const countImported = async () =>
        (await run<{ n: number }>('SELECT count(*)::int AS n FROM users WHERE email LIKE $1', [ours]))[0].n

      const root = path.resolve(import.meta.dirname, '..', '..')
      const child = spawn(process.execPath, [path.join(root, 'cli', 'bin.js'), 'users', 'import', file, '--invite'], {
        cwd: root,
        env: process.env,
        stdio: 'ignore',
      })
      const exited = new Promise<NodeJS.Signals | null>((resolve) =>
        child.on('exit', (_code, signal) => resolve(signal)),
      )
      // a few batches committed, then the process dies as a machine would take it away: no chance to clean up
      while (child.exitCode === null && (await countImported()) < 1000)
        await new Promise((resolve) => setTimeout(resolve, 20))
      child.kill('SIGKILL')
      expect(await exited).toBe('SIGKILL')

      const committed = await imported()
      expect(committed.length).toBeGreaterThanOrEqual(1000)
      expect(committed.length).toBeLessThan(total)
      // a batch is one transaction: its accounts and their invitations are there together, or not at all
      expect(committed.length % 1000).toBe(0)
      const queued = await run<{ user_id: string; status: string }>(
        'SELECT q.user_id, q.status FROM mail_queue q JOIN users u ON u.id = q.user_id WHERE u.email LIKE $1',
        [ours],
      )
      expect(queued).toHaveLength(committed.length)
      expect(new Set(queued.map((q) => q.user_id))).toEqual(new Set(committed.map((u) => u.id)))
      expect(queued.every((q) => q.status === 'pending')).toBe(true)

      // two workers at once (two hosts)
      const received: string[] = []
      const smtp = await smtpServer({
        disableReverseLookup: true,
        onData(stream, session, callback) {
          stream.resume()
          stream.on('end', () => {
            received.push(...session.envelope.rcptTo.map((r) => r.address))
            callback()
          })
        },
      })
      // pooled: the loopback server waits 100 ms before it greets each new connection
      useSmtp(`${smtp}?pool=true`)
      process.env.MAIL_RATE_PER_MINUTE = '100000'
      resetEnvCache()
      await Promise.all([startWorkers(['mail']), startWorkers(['mail'])])
      await eventually(async () => received.length >= committed.length, 120_000)
      await stopWorkers()

      // exactly one mail to every committed account, and none to a row the killed import never committed
      expect(received.toSorted()).toEqual(committed.map((u) => u.email).toSorted())
      const after = await run<{ status: string; n: number }>(
        'SELECT q.status, count(*)::int AS n FROM mail_queue q JOIN users u ON u.id = q.user_id WHERE u.email LIKE $1 GROUP BY q.status',
        [ours],
      )
      expect(after).toEqual([{ status: 'sent', n: committed.length }])
    },
  )
})
