import { randomBytes } from 'node:crypto'
import { mkdtemp, stat, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { simpleParser } from 'mailparser'
import { QueryTypes } from 'sequelize'
import { SMTPServer } from 'smtp-server'
import { afterEach, describe, expect, it } from 'vitest'
import { passwordLinkIsValid } from '#app/modules/auth/password-links.server.ts'
import { SYSTEM } from '#app/modules/auth/roles.ts'
import { storeFile } from '#app/modules/files/service.server.ts'
import { getJob } from '#app/modules/jobs/service.server.ts'
import { enqueueInvitation } from '#app/modules/mail/queue.server.ts'
import { resetMailTransport } from '#app/modules/mail/service.server.ts'
import { importJobStatus, startImportJob } from '#app/modules/users/import-jobs.server.ts'
import { resetEnvCache } from '#app/utils/env.server.ts'
import { sequelize } from '#db/client.ts'
import { makeAdmin, makeUser } from '#tests/factories.ts'
import { eventually, exitOf, jobOf, runNow, startWorkers, stopWorkers, tuneQueue, workerProcess } from '#tests/jobs.ts'
import { resetTokenIn } from '#tests/outbox.ts'
import { freePort } from '#tests/setup/global.ts'

// Workers that die or are stopped with a job in hand, as a machine or an operator does it: `portal
// worker` in a child process, killed with SIGKILL (no chance to clean up) or sent SIGTERM (the drain),
// and the job then taken up by a worker in this process. A lost worker is noticed once its job's
// heartbeat (10 seconds here, the library's least) has lapsed; the wait before a job's next try is
// skipped (runNow), since what is tested is that the job comes back, not how long it waits.

const SLOW = { timeout: 180_000 }

async function run<T extends object>(text: string, bind: unknown[] = []) {
  return (await sequelize()).query<T>(text, { bind, type: QueryTypes.SELECT })
}

const servers: SMTPServer[] = []
const children: ReturnType<typeof workerProcess>[] = []

afterEach(async () => {
  for (const { child } of children.splice(0))
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
  await stopWorkers()
  for (const server of servers.splice(0)) await new Promise<void>((resolve) => server.close(() => resolve()))
  delete process.env.SMTP_URL
  resetEnvCache()
  resetMailTransport()
})

/**
 * A loopback SMTP server that takes a mail's data and then holds its answer, accepting the mail (the
 * moment it counts as sent) only once released, or `delayMs` after its data when given. A mail whose
 * sender is gone before its answer is dropped, as a server drops a transaction it never confirmed.
 */
async function holdingSmtp({ delayMs }: { delayMs?: number } = {}) {
  const arrived: string[] = []
  const accepted: string[] = []
  const held: { raw: string; callback: () => void; gone: () => boolean }[] = []
  const closed = new Set<string>()
  let holding = true
  const accept = (mail: (typeof held)[number]) => {
    if (mail.gone()) return
    accepted.push(mail.raw)
    mail.callback()
  }
  const port = await freePort()
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    disableReverseLookup: true,
    logger: false,
    onClose(session) {
      closed.add(session.id)
    },
    onData(stream, session, callback) {
      let raw = ''
      stream.on('data', (chunk: Buffer) => (raw += chunk.toString()))
      stream.on('end', () => {
        arrived.push(raw)
        const mail = { raw, callback: () => callback(), gone: () => closed.has(session.id) }
        if (delayMs !== undefined) setTimeout(() => accept(mail), delayMs)
        else if (holding) held.push(mail)
        else accept(mail)
      })
    },
  })
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve))
  servers.push(server)
  return {
    url: `smtp://127.0.0.1:${port}`,
    arrived,
    accepted,
    release() {
      holding = false
      for (const mail of held.splice(0)) accept(mail)
    },
  }
}

/** An account without a password, invited: its mail's id (the job's). */
async function invited() {
  const user = await makeUser({ firstName: 'Ivy' })
  await run('UPDATE users SET password_hash = NULL WHERE id = $1 RETURNING id', [user.id])
  await enqueueInvitation(user.id)
  const [row] = await run<{ id: string }>('SELECT id FROM mail_queue WHERE user_id = $1', [user.id])
  return { user, id: row.id }
}

const mailRow = async (id: string) =>
  (await run<{ status: string; attempts: number }>('SELECT status, attempts FROM mail_queue WHERE id = $1', [id]))[0]

function startChild(env: Record<string, string>) {
  const worker = workerProcess(env)
  children.push(worker)
  return worker
}

/**
 * This process's worker (sending mail through `smtpUrl`) takes over: it notices the lost job (its
 * heartbeat lapsed) and, once the job is in the queue again, runs it.
 */
async function takeOver(id: string, queue: 'mail' | 'user-import', smtpUrl?: string) {
  if (smtpUrl) process.env.SMTP_URL = smtpUrl
  resetEnvCache()
  resetMailTransport()
  await startWorkers([queue])
  const back = await eventually(async () => {
    const job = await jobOf(id)
    return job?.state === 'retry' && job
  }, 60_000)
  await runNow(id)
  return back
}

describe('a mail whose worker is killed mid-send', () => {
  it('is sent once, by the worker that takes its job over', SLOW, async () => {
    await tuneQueue('mail', { heartbeatSeconds: 10 })
    const smtp = await holdingSmtp()
    const { user, id } = await invited()
    const worker = startChild({ SMTP_URL: smtp.url })

    // the mail's data is with the SMTP server, which has not accepted it yet: the process dies
    await eventually(async () => smtp.arrived.length === 1, 60_000)
    worker.child.kill('SIGKILL')
    expect(await exitOf(worker.child)).toMatchObject({ signal: 'SIGKILL' })
    expect(await mailRow(id)).toMatchObject({ status: 'sending', attempts: 1 })

    const back = await takeOver(id, 'mail', smtp.url)
    expect(back.output).toMatchObject({ value: { message: 'job heartbeat timeout' } })
    smtp.release()
    await eventually(async () => (await mailRow(id)).status === 'sent')
    expect(await jobOf(id)).toMatchObject({ state: 'completed', retry_count: 1 })

    // the held conversation died with its process: one mail was accepted, and its link works
    expect(smtp.arrived).toHaveLength(2)
    expect(smtp.accepted).toHaveLength(1)
    const mail = await simpleParser(smtp.accepted[0])
    expect(JSON.stringify(mail.to)).toContain(user.email)
    expect(await passwordLinkIsValid(resetTokenIn(mail))).toBe(true)
    expect(await mailRow(id)).toMatchObject({ status: 'sent', attempts: 2 })
  })
})

describe('a worker stopped with SIGTERM', () => {
  it('finishes the job in hand within DRAIN_SECONDS, then exits', SLOW, async () => {
    const smtp = await holdingSmtp({ delayMs: 2000 })
    const { id } = await invited()
    const worker = startChild({ SMTP_URL: smtp.url, DRAIN_SECONDS: '20' })
    await eventually(async () => smtp.arrived.length === 1, 60_000)

    worker.child.kill('SIGTERM')
    expect(await exitOf(worker.child)).toEqual({ code: 0, signal: null })
    expect(smtp.accepted).toHaveLength(1)
    expect(await mailRow(id)).toMatchObject({ status: 'sent', attempts: 1 })
    expect(await jobOf(id)).toMatchObject({ state: 'completed' })
    expect(worker.output.join('')).toContain(
      'Stopping: the jobs in hand finish or go back to the queue (at most 20 s).',
    )
  })

  it('hands a job that does not finish in time back to the queue, where the next worker takes it', SLOW, async () => {
    const smtp = await holdingSmtp()
    const { id } = await invited()
    const worker = startChild({ SMTP_URL: smtp.url, DRAIN_SECONDS: '1' })
    await eventually(async () => smtp.arrived.length === 1, 60_000)

    const stopped = Date.now()
    worker.child.kill('SIGTERM')
    expect(await exitOf(worker.child)).toEqual({ code: 0, signal: null })
    expect(Date.now() - stopped).toBeLessThan(15_000)
    // not lost: waiting for its next try, saying why
    expect(await jobOf(id)).toMatchObject({ state: 'retry', output: { value: expect.stringMatching(/shut down/) } })
    expect(await getJob(SYSTEM, id)).toMatchObject({
      state: 'retry',
      error: 'Its worker was stopping and handed it back before it finished.',
    })

    await takeOver(id, 'mail', smtp.url)
    smtp.release()
    await eventually(async () => (await mailRow(id)).status === 'sent')
    expect(smtp.accepted).toHaveLength(1)
    expect(await mailRow(id)).toMatchObject({ attempts: 2 })
  })
})

/** A users file of `rows` new learners (no passwords, so a batch is quick); the upload of `admin`. */
async function importFile(admin: { id: string }, rows: number) {
  const stamp = randomBytes(4).toString('hex')
  const dir = await mkdtemp(path.join(os.tmpdir(), 'portal-crash-import-'))
  const file = path.join(dir, 'people.csv')
  const lines = Array.from({ length: rows }, (_, i) => `Ivana,Rowe,crash${i}.${stamp}@example.com,crash${i}x${stamp}`)
  await writeFile(file, ['firstName,lastName,email,userName', ...lines].join('\n'))
  const stored = await storeFile({
    purpose: 'user_import',
    name: 'people.csv',
    contentType: 'text/csv',
    body: { file, size: (await stat(file)).size },
    uploadedBy: admin.id,
  })
  const imported = async () =>
    (
      await run<{ n: number }>('SELECT count(*)::int AS n FROM users WHERE email LIKE $1', [`%.${stamp}@example.com`])
    )[0].n
  return { key: stored.key, imported }
}

describe('an import whose worker is killed', () => {
  it('is taken up again by the next worker and finishes, creating nothing twice', SLOW, async () => {
    await tuneQueue('user-import', { heartbeatSeconds: 10 })
    const admin = await makeAdmin()
    const total = 40_000
    const { key, imported } = await importFile(admin, total)
    const { id } = await startImportJob(admin, { key, onExisting: 'skip', invite: false, delimiter: 'auto' })
    const worker = startChild({})

    // a batch or more committed, then the process is gone
    await eventually(async () => (await importJobStatus(admin, id)).counts.rows >= 1000, 60_000)
    worker.child.kill('SIGKILL')
    await exitOf(worker.child)
    const before = await imported()
    expect(before).toBeGreaterThanOrEqual(1000)
    expect(before).toBeLessThan(total)
    expect((await importJobStatus(admin, id)).status).toBe('running')

    await takeOver(id, 'user-import')
    const done = await eventually(async () => {
      const job = await importJobStatus(admin, id)
      return job.status === 'succeeded' && job
    }, 120_000)
    // the second try read the whole file: the accounts the first made are skipped, the rest created
    expect(done.counts).toMatchObject({ rows: total, skipped: before, created: total - before, failed: 0 })
    expect(await imported()).toBe(total)
  })

  it('reads as failed once its last try is gone too', SLOW, async () => {
    await tuneQueue('user-import', { heartbeatSeconds: 10, retryLimit: 0 })
    const admin = await makeAdmin()
    const { key } = await importFile(admin, 40_000)
    const { id } = await startImportJob(admin, { key, onExisting: 'skip', invite: false, delimiter: 'auto' })
    const worker = startChild({})
    await eventually(async () => (await importJobStatus(admin, id)).counts.rows >= 1000, 60_000)
    worker.child.kill('SIGKILL')
    await exitOf(worker.child)

    // a worker here records what the queue gave up on
    await startWorkers(['user-import'])
    const failed = await eventually(async () => {
      const job = await importJobStatus(admin, id)
      return job.status === 'failed' && job
    }, 60_000)
    expect(failed.message).toMatch(/server running it went away.*rows counted here were imported/)
    expect(failed.counts.rows).toBeGreaterThanOrEqual(1000)
    expect(await jobOf(id)).toMatchObject({ state: 'failed', output: { value: { message: 'job heartbeat timeout' } } })
  })
})
