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
import {
  describeMailError,
  enqueueInvitation,
  enqueueInvitations,
  LEASE_MS,
  mailQueueStatus,
  MAX_ATTEMPTS,
  sendQueued,
} from '#app/modules/mail/queue.server.ts'
import { startMailSender } from '#app/modules/mail/sender.server.ts'
import { resetMailTransport } from '#app/modules/mail/service.server.ts'
import { getEnv, resetEnvCache } from '#app/utils/env.server.ts'
import { sequelize } from '#db/client.ts'
import { portal } from '#tests/cli.ts'
import { makeAdmin, makeCoach, makeLearner, makeUser } from '#tests/factories.ts'
import { readOutbox, resetTokenIn } from '#tests/outbox.ts'
import { freePort } from '#tests/setup/global.ts'

// The mail queue on a real database, through the real mail path: the .eml outbox (SMTP_URL unset), a
// loopback SMTP server, or an SMTP address where nothing listens. Time is passed in, never waited for.

const MINUTE = 60_000

type QueueRow = {
  id: string
  status: string
  attempts: number
  next_attempt_at: Date
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

const mailsTo = async (email: string) =>
  (await readOutbox(getEnv().DATA_DIR)).filter((mail) => JSON.stringify(mail.to).includes(email))

/** Shortly ahead of the real clock, so rows queued a moment ago are due. */
const soon = () => new Date(Date.now() + 1000)

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
  for (const server of servers.splice(0)) await new Promise<void>((resolve) => server.close(() => resolve()))
})

afterAll(() => {
  delete process.env.MAIL_RATE_PER_MINUTE
  useSmtp(undefined)
})

describe('enqueueInvitation', () => {
  it('queues nothing when the transaction that queued it rolls back', async () => {
    const user = await invitee()
    const sql = await sequelize()
    await expect(
      sql.transaction(async (transaction) => {
        expect(await enqueueInvitation(user.id, transaction)).toBe(true)
        // the queued row is visible inside the transaction …
        expect(
          await sql.query('SELECT id FROM mail_queue WHERE user_id = $1', {
            bind: [user.id],
            type: QueryTypes.SELECT,
            transaction,
          }),
        ).toHaveLength(1)
        throw new Error('the import failed')
      }),
    ).rejects.toThrow('the import failed')
    // … and gone with it
    expect(await rowsOf(user.id)).toEqual([])
    expect(await sendQueued({ now: soon() })).toMatchObject({ sent: 0, waiting: 0 })
  })

  it('keeps a row queued in a committed transaction', async () => {
    const user = await invitee()
    await (await sequelize()).transaction((transaction) => enqueueInvitation(user.id, transaction))
    expect(await rowsOf(user.id)).toMatchObject([{ status: 'pending', attempts: 0, claimed_by: null }])
  })

  it('queues one invitation per user while one is waiting, and a new one once it is sent', async () => {
    const user = await invitee()
    expect(await enqueueInvitation(user.id)).toBe(true)
    expect(await enqueueInvitation(user.id)).toBe(false)
    const other = await invitee()
    expect(await enqueueInvitations([other.id, other.id, user.id])).toBe(1)
    expect(await rowsOf(user.id)).toHaveLength(1)
    expect(await rowsOf(other.id)).toHaveLength(1)

    expect(await sendQueued({ now: soon() })).toMatchObject({ sent: 2 })
    expect(await enqueueInvitation(user.id)).toBe(true)
    expect((await rowsOf(user.id)).map((r) => r.status)).toEqual(['sent', 'pending'])
  })

  it('refuses an id that is not a user id, and drops the mail of a removed account', async () => {
    await expect(enqueueInvitation('not-an-id')).rejects.toMatchObject({ status: 400 })
    const user = await invitee()
    await enqueueInvitation(user.id)
    await run('DELETE FROM users WHERE id = $1 RETURNING id', [user.id])
    expect(await rowsOf(user.id)).toEqual([])
  })
})

describe('sendQueued', () => {
  it('sends the invitation through the mail path with a link that works, and keeps no link in the queue', async () => {
    const user = await invitee()
    await enqueueInvitation(user.id)
    const now = soon()

    expect(await sendQueued({ now })).toEqual({ sent: 1, retrying: 0, failed: 0, cancelled: 0, waiting: 0, errors: [] })

    const [mail, ...more] = await mailsTo(user.email)
    expect(more).toHaveLength(0)
    expect(mail.subject).toMatch(/^Welcome to .+: set your password$/)
    expect(mail.text).toContain('Hello Ivy,')
    expect(mail.text).toContain('expires in 7 days')
    const token = resetTokenIn(mail)
    expect(token).not.toBe('')
    expect(mail.text).toContain(`http://portal.test/reset-Password/${token}`)
    expect(await passwordLinkIsValid(token)).toBe(true)

    const [row] = await rowsOf(user.id)
    expect(row).toMatchObject({ status: 'sent', attempts: 1, claimed_by: null, last_error: null })
    expect(row.sent_at?.getTime()).toBe(now.getTime())
    const stored = await run<{ text: string }>('SELECT row_to_json(q)::text AS text FROM mail_queue q')
    expect(stored.map((s) => s.text).join()).not.toContain(token)

    // nothing is due any more: a second pass sends nothing
    expect(await sendQueued({ now: new Date(now.getTime() + MINUTE) })).toMatchObject({ sent: 0 })
    expect(await mailsTo(user.email)).toHaveLength(1)
  })

  it('sends each mail once when two senders run at the same time', async () => {
    const users = await Promise.all(Array.from({ length: 12 }, invitee))
    await enqueueInvitations(users.map((u) => u.id))
    const now = soon()

    const [a, b] = await Promise.all([sendQueued({ now }), sendQueued({ now })])

    expect(a.sent + b.sent).toBe(12)
    for (const user of users) expect(await mailsTo(user.email)).toHaveLength(1)
    const statuses = await run<{ status: string; attempts: number }>('SELECT status, attempts FROM mail_queue')
    expect(statuses).toHaveLength(12)
    expect(statuses.every((s) => s.status === 'sent' && s.attempts === 1)).toBe(true)
  })

  it('retries a failed send later, records why in one line without credentials, and fails after the last try', async () => {
    const closed = await freePort()
    useSmtp(`smtp://mailer:Sup3r-secret-pw@127.0.0.1:${closed}`)
    const user = await invitee()
    await enqueueInvitation(user.id)
    let now = soon()

    const first = await sendQueued({ now })
    expect(first).toMatchObject({ sent: 0, retrying: 1, failed: 0 })
    let [row] = await rowsOf(user.id)
    expect(row).toMatchObject({ status: 'pending', attempts: 1, claimed_by: null })
    expect(row.next_attempt_at.getTime()).toBe(now.getTime() + MINUTE)
    expect(row.last_error).toMatch(/ECONNREFUSED/)
    expect(row.last_error).not.toMatch(/[\r\n]/)
    expect(row.last_error).not.toContain('Sup3r-secret-pw')
    expect(first.errors).toEqual([row.last_error])

    // not due before its time
    expect(await sendQueued({ now: new Date(now.getTime() + 30_000) })).toMatchObject({ retrying: 0, waiting: 0 })

    const delays: number[] = []
    for (let attempt = 2; attempt <= MAX_ATTEMPTS; attempt++) {
      now = row.next_attempt_at
      const result = await sendQueued({ now })
      ;[row] = await rowsOf(user.id)
      expect(row.attempts).toBe(attempt)
      if (attempt < MAX_ATTEMPTS) {
        expect(result).toMatchObject({ retrying: 1, failed: 0 })
        expect(row.status).toBe('pending')
        delays.push((row.next_attempt_at.getTime() - now.getTime()) / MINUTE)
      } else {
        expect(result).toMatchObject({ retrying: 0, failed: 1 })
      }
    }
    expect(delays).toEqual([2, 4, 8, 16, 32, 60])
    expect(row).toMatchObject({ status: 'failed', attempts: MAX_ATTEMPTS, claimed_by: null })
    // a failed mail is never tried again
    expect(await sendQueued({ now: new Date(now.getTime() + 24 * 60 * MINUTE) })).toMatchObject({
      retrying: 0,
      failed: 0,
    })
    expect((await rowsOf(user.id))[0].attempts).toBe(MAX_ATTEMPTS)
  })

  it('records a refusal by the SMTP server and sends the retry once the server takes it', async () => {
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
    const now = soon()

    expect(await sendQueued({ now })).toMatchObject({ retrying: 1 })
    const [row] = await rowsOf(user.id)
    expect(row.last_error).toMatch(/450/)
    expect(row.last_error).not.toMatch(/[\r\n]/)
    expect(received).toHaveLength(0)

    refuse = false
    expect(await sendQueued({ now: row.next_attempt_at })).toMatchObject({ sent: 1 })
    expect(received).toHaveLength(1)
    const parsed = await simpleParser(received[0])
    expect(await passwordLinkIsValid(resetTokenIn(parsed))).toBe(true)
    expect(await rowsOf(user.id)).toMatchObject([{ status: 'sent', attempts: 2, last_error: null }])
  })

  it('sends again a mail whose sender died mid-send, with a new link that replaces the old one', async () => {
    const user = await invitee()
    const fresh = await invitee()
    await enqueueInvitations([user.id, fresh.id])
    const now = soon()
    // a process claimed both, made the first one's link, and died: one lease is old, one is recent
    const orphanToken = await createPasswordLink(user.id, 'invite')
    await run(
      `UPDATE mail_queue SET status = 'sending', attempts = 1, claimed_by = 'gone-host:4242:dead',
              claimed_at = CASE WHEN user_id = $1 THEN $2::timestamptz ELSE $3::timestamptz END
        WHERE user_id IN ($1, $4) RETURNING id`,
      [user.id, new Date(now.getTime() - LEASE_MS - 1000), new Date(now.getTime() - MINUTE), fresh.id],
    )

    expect(await sendQueued({ now })).toMatchObject({ sent: 1, retrying: 0 })

    const [mail] = await mailsTo(user.email)
    const token = resetTokenIn(mail)
    expect(token).not.toBe(orphanToken)
    expect(await passwordLinkIsValid(token)).toBe(true)
    expect(await passwordLinkIsValid(orphanToken)).toBe(false)
    expect(await rowsOf(user.id)).toMatchObject([{ status: 'sent', attempts: 2, claimed_by: null }])
    // a lease still young belongs to a sender that may be working on it: left alone until it is old
    expect(await rowsOf(fresh.id)).toMatchObject([{ status: 'sending', claimed_by: 'gone-host:4242:dead' }])
    expect(await mailsTo(fresh.email)).toHaveLength(0)
    expect(await sendQueued({ now: new Date(now.getTime() + LEASE_MS) })).toMatchObject({ sent: 1 })
    expect(await mailsTo(fresh.email)).toHaveLength(1)
  })

  it('keeps to MAIL_RATE_PER_MINUTE across senders: 2 a minute sends 2 of 5 now and the rest in later minutes', async () => {
    process.env.MAIL_RATE_PER_MINUTE = '2'
    resetEnvCache()
    const users = await Promise.all(Array.from({ length: 5 }, invitee))
    await enqueueInvitations(users.map((u) => u.id))
    const t0 = soon()
    const at = (seconds: number) => new Date(t0.getTime() + seconds * 1000)

    // two senders at once share the one budget
    const [a, b] = await Promise.all([sendQueued({ now: t0 }), sendQueued({ now: t0 })])
    expect(a.sent + b.sent).toBe(2)
    expect(Math.max(a.waiting, b.waiting)).toBe(3)
    expect(await sendQueued({ now: at(59) })).toMatchObject({ sent: 0, waiting: 3 })
    expect(await sendQueued({ now: at(61) })).toMatchObject({ sent: 2, waiting: 1 })
    expect(await sendQueued({ now: at(90) })).toMatchObject({ sent: 0, waiting: 1 })
    expect(await sendQueued({ now: at(122) })).toMatchObject({ sent: 1, waiting: 0 })
    for (const user of users) expect(await mailsTo(user.email)).toHaveLength(1)
  })

  it('counts the claims of another sender that is claiming at that very moment', async () => {
    process.env.MAIL_RATE_PER_MINUTE = '2'
    resetEnvCache()
    const users = await Promise.all(Array.from({ length: 4 }, invitee))
    await enqueueInvitations(users.map((u) => u.id))
    const t0 = soon()
    // another process, in the middle of its claim: it holds the claim lock and has taken two rows
    const sql = await sequelize()
    const other = await sql.transaction()
    await sql.query('SELECT pg_advisory_xact_lock(7305010)', { transaction: other })
    await sql.query(
      `UPDATE mail_queue SET status = 'sending', attempts = 1, claimed_at = $1, claimed_by = 'other-host:1:x'
        WHERE id IN (SELECT id FROM mail_queue ORDER BY id LIMIT 2)`,
      { bind: [t0], transaction: other },
    )
    let settled = false
    const mine = sendQueued({ now: t0 }).finally(() => (settled = true))
    const waiting = async () =>
      (
        await run<{ n: number }>("SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND NOT granted")
      )[0].n > 0
    // until this sender waits for the other's claim (a build without the lock finishes instead)
    while (!settled && !(await waiting())) await new Promise((resolve) => setTimeout(resolve, 20))
    await other.commit()

    expect(await mine).toMatchObject({ sent: 0, waiting: 2 })
    expect(await run('SELECT id FROM mail_queue WHERE status = $1', ['sent'])).toHaveLength(0)
  })

  it('sends at most the limit it is given', async () => {
    const users = await Promise.all(Array.from({ length: 3 }, invitee))
    await enqueueInvitations(users.map((u) => u.id))
    expect(await sendQueued({ now: soon(), limit: 1 })).toMatchObject({ sent: 1, waiting: 2 })
  })

  it('gives back the mails it claimed but had not sent when it is stopped', async () => {
    const controller = new AbortController()
    const received: string[] = []
    useSmtp(
      await smtpServer({
        onData(stream, session, callback) {
          stream.resume()
          stream.on('end', () => {
            received.push(session.envelope.rcptTo[0].address)
            // the portal is shutting down while the first mail is being handed over
            controller.abort()
            callback()
          })
        },
      }),
    )
    const users = await Promise.all(Array.from({ length: 3 }, invitee))
    await enqueueInvitations(users.map((u) => u.id))

    const result = await sendQueued({ now: soon(), signal: controller.signal })

    expect(result).toMatchObject({ sent: 1, waiting: 2 })
    expect(received).toHaveLength(1)
    const rows = await run<QueueRow>('SELECT * FROM mail_queue ORDER BY status')
    expect(rows.map((r) => [r.status, r.attempts, r.claimed_by, r.claimed_at === null])).toEqual([
      ['pending', 0, null, true],
      ['pending', 0, null, true],
      ['sent', 1, null, false],
    ])
  })

  it('drops an invitation whose account has a password by the time it is sent', async () => {
    const user = await invitee()
    await enqueueInvitation(user.id)
    await run("UPDATE users SET password_hash = 'x' WHERE id = $1 RETURNING id", [user.id])
    expect(await sendQueued({ now: soon() })).toMatchObject({ sent: 0, cancelled: 1 })
    expect(await mailsTo(user.email)).toHaveLength(0)
    expect(await rowsOf(user.id)).toMatchObject([
      { status: 'cancelled', last_error: 'The account already has a password.' },
    ])
  })
})

describe('describeMailError', () => {
  it('folds an error into one line and hides the SMTP user and password', () => {
    useSmtp('smtp://relay-user:p%40ss-w0rd@mail.example.com:587')
    const line = describeMailError(
      new Error(
        'Invalid login for relay-user: p@ss-w0rd\n535 Authentication failed at smtp://relay-user:p%40ss-w0rd@mail.example.com',
      ),
    )
    expect(line).toBe(
      'Invalid login for [hidden]: [hidden] 535 Authentication failed at smtp://[hidden]@mail.example.com',
    )
    expect(describeMailError(new Error('x'.repeat(2000)))).toHaveLength(500)
  })
})

describe('mailQueueStatus', () => {
  it('shows the admin side counts and the latest rows, and refuses learners', async () => {
    const [sent, waiting] = [await invitee(), await invitee()]
    await enqueueInvitation(sent.id)
    await sendQueued({ now: soon() })
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
      nextAttemptAt: expect.any(String),
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

describe('the sender of portal serve', () => {
  it('sends what is due when it starts, and stops cleanly', async () => {
    const user = await invitee()
    await enqueueInvitation(user.id)
    const reports: number[] = []
    const errors: unknown[] = []
    const sender = startMailSender({ sent: (r) => reports.push(r.sent), error: (e) => errors.push(e) })
    await sender.current()
    await sender.stop()
    expect(errors).toEqual([])
    expect(reports).toEqual([1])
    expect(await mailsTo(user.email)).toHaveLength(1)
  })
})

// each command is a child process starting Node and tsx: a test of several needs more than the default time
const SLOW = { timeout: 180_000 }

describe('portal mail', () => {
  it('lists the queue as JSON, sends what is due, and exits 2 on wrong input', SLOW, async () => {
    const user = await invitee()
    await enqueueInvitation(user.id)

    const listed = await portal(['mail', 'queue', '--json'])
    expect(listed.code).toBe(0)
    const status = JSON.parse(listed.stdout) as Awaited<ReturnType<typeof mailQueueStatus>>
    expect(status).toMatchObject({
      counts: { pending: 1, sending: 0, sent: 0, failed: 0, cancelled: 0 },
      due: 1,
      rows: [{ email: user.email, status: 'pending', attempts: 0, kind: 'invitation' }],
    })

    const sent = await portal(['mail', 'send-due', '--json'])
    expect(sent).toMatchObject({ code: 0 })
    expect(JSON.parse(sent.stdout)).toEqual({ sent: 1, retrying: 0, failed: 0, cancelled: 0, waiting: 0, errors: [] })
    expect(sent.stderr).toContain('Mail queue: 1 sent, 0 still due.')
    expect(await passwordLinkIsValid(resetTokenIn((await mailsTo(user.email))[0]))).toBe(true)

    const table = await portal(['mail', 'queue', '--status', 'sent'])
    expect(table.code).toBe(0)
    expect(table.stdout).toMatch(/^PENDING\s+SENDING\s+SENT\s+FAILED\s+CANCELLED\s+DUE NOW\n0\s+0\s+1\s+0\s+0\s+0\n/)
    expect(table.stdout).toContain(user.email)

    const wrong = await portal(['mail', 'queue', '--status', 'lost'])
    expect(wrong).toMatchObject({ code: 2, stdout: '' })
    expect(wrong.stderr).toContain('--status: Status must be one of pending, sending, sent, failed, cancelled.')
    expect(await portal(['mail', 'send-due', '--limit', '0'])).toMatchObject({ code: 2, stdout: '' })
  })

  it('send-due exits once it is done with a pooled SMTP transport too', SLOW, async () => {
    const user = await invitee()
    await enqueueInvitation(user.id)
    const smtp = await smtpServer({})
    // a pool keeps its connections open until closed: a command that left it open would never exit
    const sent = await portal(['mail', 'send-due', '--json'], { SMTP_URL: `${smtp}?pool=true` })
    expect(sent).toMatchObject({ code: 0 })
    expect(JSON.parse(sent.stdout)).toMatchObject({ sent: 1 })
  })

  it('send-due exits 1 when a mail could not be sent, without the SMTP password', SLOW, async () => {
    const user = await invitee()
    await enqueueInvitation(user.id)
    const closed = await freePort()
    const failed = await portal(['mail', 'send-due'], { SMTP_URL: `smtp://mailer:Sup3r-secret-pw@127.0.0.1:${closed}` })
    expect(failed).toMatchObject({ code: 1, stdout: '' })
    expect(failed.stderr).toContain('Mail queue: 0 sent, 1 to retry later')
    expect(failed.stderr).toMatch(/ECONNREFUSED/)
    expect(failed.stderr).not.toContain('Sup3r-secret-pw')
    expect(await rowsOf(user.id)).toMatchObject([{ status: 'pending', attempts: 1 }])
  })
})

describe('an import killed part-way, then the mail sent by cron', () => {
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
      while (child.exitCode === null && (await countImported()) < 3000)
        await new Promise((resolve) => setTimeout(resolve, 20))
      child.kill('SIGKILL')
      expect(await exited).toBe('SIGKILL')

      const committed = await imported()
      expect(committed.length).toBeGreaterThanOrEqual(3000)
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

      // the portal's cron job, started twice at once (two hosts, or a run that overlaps the next)
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
      const env = { SMTP_URL: `${smtp}?pool=true`, MAIL_RATE_PER_MINUTE: '100000' }
      const senders = await Promise.all([
        portal(['mail', 'send-due', '--json'], env),
        portal(['mail', 'send-due', '--json'], env),
      ])
      for (const sender of senders) expect(sender.code).toBe(0)
      const sent = senders.map((sender) => (JSON.parse(sender.stdout) as { sent: number }).sent)
      expect(sent[0] + sent[1]).toBe(committed.length)

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
