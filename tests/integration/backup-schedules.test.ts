import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { QueryTypes } from 'sequelize'
import { beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { ZodError } from 'zod'
import { SYSTEM } from '#app/modules/auth/roles.ts'
import {
  addBackupSchedule,
  backupAlert,
  backupRunJobs,
  claimDueBackups,
  findBackupRun,
  listBackupRuns,
  listBackupSchedules,
  runBackup,
  runBackupSchedule,
} from '#app/modules/backups/schedules.server.ts'
import { openArchive } from '#app/modules/backups/source.server.ts'
import { verifyArchive } from '#app/modules/backups/verify.server.ts'
import { sendQueuedMail } from '#app/modules/mail/queue.server.ts'
import * as page from '#app/routes/admin+/backups.tsx'
import * as download from '#app/routes/admin+/backups_.$runId.download.ts'
import { getEnv } from '#app/utils/env.server.ts'
import { sequelize } from '#db/client.ts'
import { portal } from '#tests/cli.ts'
import { makeSuperAdmin } from '#tests/factories.ts'
import { jobOf, tryOf } from '#tests/jobs.ts'
import { readOutbox } from '#tests/outbox.ts'
import { body, call } from '#tests/requests.ts'
import { signedInPeople, toastOf, type SignedInPerson } from '#tests/sessions.ts'

// Scheduled backups through their service, their job, the Backups page and `portal backups`, on a real
// database. A run's job is tried by calling its handler as a worker would; it takes the backup with
// `portal backup` in a child process, as a worker does, so only two runs here take one.

const NIGHT = new Date('2026-11-24T02:00:30Z')
const DAY_MS = 24 * 60 * 60 * 1000

async function rows<T extends object>(text: string, bind: unknown[] = []) {
  return (await sequelize()).query<T>(text, { bind, type: QueryTypes.SELECT })
}

const folder = async () => `${await mkdtemp(path.join(os.tmpdir(), 'portal-backup-schedule-'))}/`

/** A schedule as if it had been made long before the times the tests claim its slots at. */
async function schedule(input: Record<string, unknown>) {
  const made = await addBackupSchedule(SYSTEM, { cron: '0 2 * * *', ...input })
  await rows(`UPDATE backup_schedules SET created_at = '2026-01-01T00:00:00Z' WHERE id = $1 RETURNING id`, [made.id])
  return made
}

let people: Record<'superAdmin' | 'admin' | 'learner', SignedInPerson>

beforeAll(async () => {
  people = await signedInPeople('superAdmin', 'admin', 'learner')
})

beforeEach(async () => {
  await rows('DELETE FROM backup_schedules RETURNING id')
})

describe('a backup schedule', () => {
  const valid = { name: 'nightly', cron: '0 2 * * *', destination: '/var/backups/portal/' }

  it('is refused with a message that says what is wrong, and kept with its defaults', async () => {
    const refusal = async (input: Record<string, unknown>) => {
      const error = await addBackupSchedule(SYSTEM, { ...valid, ...input }).catch((e: unknown) => e)
      expect(error).toBeInstanceOf(ZodError)
      return Object.fromEntries((error as ZodError).issues.map((i) => [i.path.join('.'), i.message]))
    }
    expect((await refusal({ cron: '0 25 * * *' })).cron).toMatch(/^Cron "0 25 \* \* \*" is not a valid schedule/)
    expect((await refusal({ destination: 'backups/' })).destination).toBe(
      'A folder destination must be an absolute path (such as /var/backups/), or use s3://bucket/prefix/.',
    )
    expect((await refusal({ keepDaily: '-1' })).keepDaily).toBe('Daily archives kept cannot be negative.')
    expect((await refusal({ keepWeekly: 'many' })).keepWeekly).toBe('Weekly archives kept must be a number.')
    expect((await refusal({ compression: 'xz' })).compression).toBe('Compression must be one of zstd, gzip.')

    const dir = await folder()
    const made = await addBackupSchedule(SYSTEM, { ...valid, destination: dir })
    expect(made).toMatchObject({ keepDaily: 7, keepWeekly: 4, compression: 'zstd', timeZone: 'UTC' })
    expect(made.nextRun).toMatch(/T02:00:00\.000Z$/)
    await expect(addBackupSchedule(SYSTEM, { ...valid, name: 'NIGHTLY', destination: dir })).rejects.toMatchObject({
      status: 409,
      message: 'A backup schedule named NIGHTLY already exists.',
    })
    // a folder must be there when the schedule is added, not found missing in the night
    await expect(addBackupSchedule(SYSTEM, { ...valid, name: 'other' })).rejects.toMatchObject({
      status: 400,
      errors: { destination: 'The folder /var/backups/portal/ does not exist.' },
    })
  })

  it('has each slot claimed once, with its job, however many look at once', async () => {
    await schedule({ name: 'raced', destination: await folder() })
    const [first, second] = await Promise.all([claimDueBackups(NIGHT), claimDueBackups(NIGHT)])
    const claimed = [...first, ...second]
    expect(claimed).toMatchObject([{ scheduleName: 'raced', trigger: 'schedule', slot: '2026-11-24T02:00:00.000Z' }])
    expect(await jobOf(claimed[0].id)).toMatchObject({ name: 'backup-run', state: 'created' })
    expect(await claimDueBackups(NIGHT)).toEqual([])
    expect((await listBackupRuns(SYSTEM)).filter((r) => r.scheduleName === 'raced')).toHaveLength(1)
  })
})

describe('a run', () => {
  it('that fails on its last try mails each super admin once and shows on their dashboard', async () => {
    await makeSuperAdmin()
    const dir = await folder()
    await schedule({ name: 'nightly', destination: dir })
    // the folder was there when the schedule was added, and is gone since
    await rm(dir, { recursive: true })
    const [claimed] = await claimDueBackups(NIGHT)
    const reason = `The folder ${dir} does not exist.`

    // a first try that fails leaves the run waiting for the next, and mails no one
    await expect(runBackup(tryOf(claimed.id))).rejects.toThrow(reason)
    expect(await findBackupRun(SYSTEM, claimed.id)).toMatchObject({
      status: 'queued',
      error: `${reason} (it is tried again shortly)`,
    })
    expect(await backupAlert(people.superAdmin)).toBeNull()

    await expect(runBackup(tryOf(claimed.id, { retryCount: 1, lastTry: true }))).rejects.toThrow(reason)
    const failed = await findBackupRun(SYSTEM, claimed.id)
    expect(failed).toMatchObject({ status: 'failed', error: reason, verifiedAt: null, location: null })
    // the job queue gives the job up after its last try: the run is failed already, and mailed once
    await backupRunJobs.gaveUp?.(claimed.id, 'The job was given up.')

    const mails = await rows<{ id: string; user_id: string; kind: string }>(
      'SELECT id, user_id, kind FROM mail_queue WHERE subject_id = $1',
      [claimed.id],
    )
    const superAdmins = await rows<{ id: string }>("SELECT id FROM users WHERE role_id = 1 AND email <> ''")
    expect(superAdmins.length).toBeGreaterThanOrEqual(2)
    expect(mails.map((m) => m.user_id).sort()).toEqual(superAdmins.map((u) => u.id).sort())
    expect(new Set(mails.map((m) => m.kind))).toEqual(new Set(['backup-failed']))
    for (const mail of mails) expect(await jobOf(mail.id)).toMatchObject({ name: 'mail', state: 'created' })

    // the sender writes the mail from the run
    const mine = mails.find((m) => m.user_id === people.superAdmin.id)!
    await sendQueuedMail(tryOf(mine.id))
    const [sent] = (await readOutbox(getEnv().DATA_DIR)).filter((m) =>
      JSON.stringify(m.to).includes(people.superAdmin.email),
    )
    expect(sent.subject).toMatch(/the backup nightly failed$/)
    expect(sent.text).toMatch(
      new RegExp(
        `^The backup nightly failed at \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d UTC: ${reason.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}`,
      ),
    )
    expect(sent.text).toContain('http://portal.test/admin/backups')

    expect(await backupAlert(people.superAdmin)).toMatchObject({ scheduleName: 'nightly', error: reason, others: 0 })
    // an admin neither reads the backups nor hears of them
    expect(await backupAlert(people.admin)).toBeNull()
  })

  it('writes a verified archive, records it, removes exactly the archives retention does not keep, and clears the alert', async () => {
    const dir = await folder()
    const made = await schedule({ name: 'kept', destination: dir, keepDaily: 2, keepWeekly: 0 })
    // yesterday's and older archives, as earlier runs left them; and a scheduled run that failed after them
    const yesterday = Math.floor(Date.now() / DAY_MS) * DAY_MS - DAY_MS
    const earlier = async (name: string, at: number, status = 'succeeded', verified = true) => {
      const location = path.join(dir, name)
      await writeFile(location, name)
      const [run] = await rows<{ id: string }>(
        `INSERT INTO backup_runs (schedule_id, schedule_name, trigger, started_at, finished_at, status, location, bytes,
                                  verified_at)
         VALUES ($1, 'kept', 'manual', $2, $2, $3, $4, 10, CASE WHEN $5 THEN $2::timestamptz END) RETURNING id`,
        [made.id, new Date(at), status, location, verified],
      )
      return run.id
    }
    const late = await earlier('yesterday-late.tar.zst', yesterday + 20 * 3600_000)
    const early = await earlier('yesterday-early.tar.zst', yesterday + 8 * 3600_000)
    const old = await earlier('three-days-ago.tar.zst', yesterday - 2 * DAY_MS)
    const unsound = await earlier('unverified.tar.zst', yesterday + 21 * 3600_000, 'failed', false)
    await writeFile(path.join(dir, 'not-a-run.txt'), 'kept: no run names it')
    await rows(
      `INSERT INTO backup_runs (schedule_id, schedule_name, trigger, slot, started_at, finished_at, status, error)
       VALUES ($1, 'kept', 'schedule', $2, $2, $2, 'failed', 'The disk was full.') RETURNING id`,
      [made.id, new Date(yesterday + 22 * 3600_000)],
    )
    expect(await backupAlert(people.superAdmin)).toMatchObject({ scheduleName: 'kept', error: 'The disk was full.' })

    const queued = await runBackupSchedule(SYSTEM, 'kept')
    expect(await jobOf(queued.id)).toMatchObject({ name: 'backup-run', state: 'created' })
    await runBackup(tryOf(queued.id, { lastTry: true }))

    const run = await findBackupRun(SYSTEM, queued.id)
    expect(run).toMatchObject({ status: 'succeeded', trigger: 'manual', error: null, removedAt: null })
    expect(run.location).toMatch(new RegExp(`^${dir}portal-backup-\\d{8}T\\d{6}Z-v[\\d.]+\\.tar\\.zst$`))
    expect(run.verifiedAt).not.toBeNull()
    expect(run.bytes).toBe((await stat(run.location!)).size)
    expect(run.tables).toBeGreaterThan(20)
    expect(run.rows).toBeGreaterThan(0)
    expect(run.files).toBeGreaterThanOrEqual(0)
    expect(run.durationMs).toBeGreaterThan(0)
    const report = await verifyArchive(await openArchive(run.location!))
    expect(report).toMatchObject({ ok: true, header: { trigger: 'schedule', runId: run.id, secrets: false } })
    expect(report.summary.rows).toBe(run.rows)

    // kept: the new archive (today's) and yesterday's newest; every other recorded archive is removed
    expect((await readdir(dir)).sort()).toEqual(
      [path.basename(run.location!), 'not-a-run.txt', 'yesterday-late.tar.zst'].sort(),
    )
    const removed = await rows<{ id: string; removed: boolean }>(
      'SELECT id, removed_at IS NOT NULL AS removed FROM backup_runs WHERE id = ANY($1::uuid[])',
      [[late, early, old, unsound]],
    )
    expect(Object.fromEntries(removed.map((r) => [r.id, r.removed]))).toEqual({
      [late]: false,
      [early]: true,
      [old]: true,
      [unsound]: true,
    })
    // a succeeded run clears the notice
    expect(await backupAlert(people.superAdmin)).toBeNull()

    // the archive downloads from its run, for the super admin only
    const get = (who: keyof typeof people, runId: string) =>
      call(download.loader, `/admin/backups/${runId}/download`, {
        headers: { Cookie: people[who].cookie },
        params: { runId },
      })
    const response = await get('superAdmin', run.id)
    expect(response.status).toBe(200)
    expect(response.headers.get('Content-Type')).toBe('application/zstd')
    expect(response.headers.get('Content-Disposition')).toBe(`attachment; filename="${path.basename(run.location!)}"`)
    expect(Buffer.from(await response.arrayBuffer()).equals(await readFile(run.location!))).toBe(true)
    expect((await get('admin', run.id)).status).toBe(403)
    // a removed archive, and an id that is no run, are not there
    expect((await get('superAdmin', early)).status).toBe(404)
    expect((await get('superAdmin', '../../etc/passwd')).status).toBe(404)
  })
})

describe('the Backups page', () => {
  const open = (who: keyof typeof people) =>
    call(page.loader, '/admin/backups', { headers: { Cookie: people[who].cookie } })
  const post = (who: keyof typeof people, fields: Record<string, string>) =>
    call(page.action, '/admin/backups', {
      method: 'POST',
      headers: { Cookie: people[who].cookie },
      body: new URLSearchParams(fields),
    })
  const fields = (destination: string) => ({
    intent: 'add',
    name: 'nightly',
    cron: '0 2 * * *',
    timeZone: 'UTC',
    keepDaily: '5',
    keepWeekly: '2',
    compression: 'zstd',
    destination,
  })
  const inside = () => `${path.join(process.env.DATA_DIR!, 'backups', 'nightly')}/`

  it('is the super admin’s alone: an admin is sent back to the dashboard, a learner away', async () => {
    const shown = await open('superAdmin')
    expect(shown.status).toBe(200)
    expect(await body(shown)).toMatchObject({
      schedules: [],
      folder: `${path.join(process.env.DATA_DIR!, 'backups')}/`,
      s3Targets: [],
    })
    for (const answer of [await open('admin'), await post('admin', fields(inside()))]) {
      expect(answer.status).toBe(302)
      expect(answer.headers.get('Location')).toBe('/admin/dashboard')
      expect(await toastOf(answer)).toMatchObject({
        type: 'error',
        message: 'Backups are for the super admin and operators.',
      })
    }
    expect((await open('learner')).headers.get('Location')).toBe('/courses')
    expect((await post('learner', fields(inside()))).headers.get('Location')).toBe('/courses')
    expect(await listBackupSchedules(SYSTEM)).toEqual([])
  })

  it('adds a schedule only inside $DATA_DIR/backups, says why beside the fields, and removes it', async () => {
    const refused = await post('superAdmin', { ...fields('/var/backups/'), cron: '0 2 * *', keepDaily: '-1' })
    expect(refused.status).toBe(400)
    const { result } = await body<{ result: { error: Record<string, string[]> } }>(refused)
    expect(result.error.cron?.[0]).toMatch(/^Cron "0 2 \* \*" is not a valid schedule/)
    expect(result.error.keepDaily).toEqual(['Daily archives kept cannot be negative.'])

    for (const destination of ['/var/backups/', `${path.join(process.env.DATA_DIR!, 'exports')}/`, '/tmp/']) {
      const outside = await post('superAdmin', fields(destination))
      expect(outside.status).toBe(400)
      const reply = await body<{ result: { error: Record<string, string[]> } }>(outside)
      expect(reply.result.error.destination).toEqual([
        `From the admin area a folder destination must be inside ${path.join(process.env.DATA_DIR!, 'backups')}/ (other folders, and S3, are set with the portal CLI).`,
      ])
    }
    const s3 = await post('superAdmin', fields('s3://backups/portal/'))
    expect((await body<{ result: { error: Record<string, string[]> } }>(s3)).result.error.destination?.[0]).toMatch(
      /^From the admin area backups go to a folder inside .*; S3 destinations are set with the portal CLI\.$/,
    )
    expect(await listBackupSchedules(SYSTEM)).toEqual([])

    const added = await post('superAdmin', fields(inside()))
    expect(await toastOf(added)).toMatchObject({ type: 'success', message: 'Schedule nightly added.' })
    expect((await stat(inside())).isDirectory()).toBe(true)
    expect(await body(await open('superAdmin'))).toMatchObject({
      schedules: [{ name: 'nightly', keepDaily: 5, keepWeekly: 2, destination: inside() }],
    })
    const ran = await post('superAdmin', { intent: 'run', name: 'nightly' })
    expect(await toastOf(ran)).toMatchObject({ type: 'success' })
    const { runs } = await body<{ runs: unknown[] }>(await open('superAdmin'))
    expect(runs[0]).toMatchObject({ scheduleName: 'nightly', trigger: 'manual', status: 'queued' })

    const removed = await post('superAdmin', { intent: 'remove', name: 'nightly' })
    expect(await toastOf(removed)).toMatchObject({ type: 'success' })
    expect(await listBackupSchedules(SYSTEM)).toEqual([])
  })
})

describe('portal backups', () => {
  // each command is a child process starting Node and tsx
  const SLOW = { timeout: 180_000 }

  it('adds, lists, runs, shows the history of and removes a schedule, with JSON and exit codes', SLOW, async () => {
    const dir = await folder()
    const add = ['backups', 'schedule', 'add', '--name', 'cli', '--cron', '30 1 * * *', '--to', dir]
    const added = await portal([
      ...add,
      '--tz',
      'Europe/Berlin',
      '--keep-daily',
      '3',
      '--compression',
      'gzip',
      '--json',
    ])
    expect(added.code).toBe(0)
    expect(JSON.parse(added.stdout)).toMatchObject({
      name: 'cli',
      cron: '30 1 * * *',
      timeZone: 'Europe/Berlin',
      destination: dir,
      keepDaily: 3,
      keepWeekly: 4,
      compression: 'gzip',
      nextRun: expect.any(String),
    })
    expect(added.stderr).toMatch(/^Added backup schedule cli: 30 1 \* \* \* \(Europe\/Berlin\) to .*keeping 3 daily/)

    expect(await portal(add)).toMatchObject({
      code: 1,
      stderr: 'portal: A backup schedule named cli already exists.\n',
    })
    const wrong = await portal([...add, '--name', 'bad', '--cron', '0 25 * * *', '--keep-weekly', '-2', '--to', 'x/'])
    expect(wrong.code).toBe(2)
    expect(wrong.stderr).toMatch(/portal: --cron: Cron "0 25 \* \* \*" is not a valid schedule/)
    expect(wrong.stderr).toContain('portal: --keep-weekly: Weekly archives kept cannot be negative.')
    expect(wrong.stderr).toContain('portal: --to: A folder destination must be an absolute path')

    const listed = await portal(['backups', 'schedule', 'list', '--json'])
    expect(JSON.parse(listed.stdout)).toMatchObject([{ name: 'cli', keepDaily: 3, compression: 'gzip' }])

    // queued for the workers: its id on stdout, which is its job's
    const queued = await portal(['backups', 'run', 'cli'])
    expect(queued.code).toBe(0)
    const id = queued.stdout.trim()
    expect(await jobOf(id)).toMatchObject({ name: 'backup-run', state: 'created' })
    expect(await portal(['backups', 'run', 'none'])).toMatchObject({
      code: 1,
      stderr: 'portal: There is no backup schedule named none.\n',
    })

    const history = await portal(['backups', 'history', '--json', '--limit', '1'])
    expect(JSON.parse(history.stdout)).toMatchObject([
      {
        id,
        scheduleName: 'cli',
        trigger: 'manual',
        status: 'queued',
        bytes: null,
        durationMs: null,
        verifiedAt: null,
        removedAt: null,
      },
    ])

    expect(await portal(['backups', 'schedule', 'remove', 'cli', '--json'])).toMatchObject({
      code: 0,
      stdout: '{"name":"cli"}\n',
    })
    expect((await portal(['backups', 'schedule', 'remove', 'cli'])).code).toBe(1)
    // its run stays in the history
    expect(await findBackupRun(SYSTEM, id)).toMatchObject({ scheduleId: null, scheduleName: 'cli' })
  })
})
