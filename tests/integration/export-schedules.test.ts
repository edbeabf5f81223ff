import { mkdir, mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { GetObjectCommand, ListObjectsV2Command } from '@aws-sdk/client-s3'
import { parse } from 'csv-parse/sync'
import { QueryTypes } from 'sequelize'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { ZodError } from 'zod'
import { SYSTEM } from '#app/modules/auth/roles.ts'
import {
  addSchedule,
  claimDueRuns,
  claimSlot,
  exportRunJobs,
  findRun,
  listRuns,
  listSchedules,
  openRunFile,
  removeSchedule,
  runExport,
  runSchedule,
  type ExportRunView,
} from '#app/modules/exports/service.server.ts'
import { makeS3Client } from '#app/modules/files/s3-storage.server.ts'
import { jobLibrary } from '#app/modules/jobs/connection.server.ts'
import { recordProgress } from '#app/modules/progress/service.server.ts'
import { sequelize } from '#db/client.ts'
import {
  assignCourse,
  makeAdmin,
  makeCoach,
  makeCourse,
  makeLab,
  makeLearner,
  makeUser,
  recordLabAttempt,
} from '#tests/factories.ts'
import { readBody, S3_TEST_BUCKET, useS3rver } from '#tests/fixtures/files.ts'
import { startS3Recorder, type S3Recorder } from '#tests/fixtures/s3-recorder.ts'
import { eventually, jobOf, startWorkers, stopWorkers, tryOf } from '#tests/jobs.ts'

// Scheduled exports through their service, on a real database, real files and a real S3-compatible server.
// A run's job is tried here by calling its handler as a worker would, its last try unless a test says
// otherwise; the workers themselves run where what matters is that a slot runs once.

const NIGHT = new Date('2026-11-24T02:00:30Z')

async function sql(text: string, bind: unknown[] = []) {
  return (await sequelize()).query(text, { bind })
}

/** A schedule as if it had been made long before the times the tests run it at. */
async function schedule(input: Record<string, unknown>) {
  const made = await addSchedule(SYSTEM, { cron: '0 2 * * *', range: 'yesterday', ...input })
  await sql(`UPDATE export_schedules SET created_at = '2026-01-01T00:00:00Z' WHERE id = $1`, [made.id])
  return made
}

const runsOf = async (name: string) => (await listRuns(SYSTEM, { limit: 1000 })).filter((r) => r.scheduleName === name)

const folder = async () => `${await mkdtemp(path.join(os.tmpdir(), 'portal-schedule-'))}/`

/** A learner who watched the course's first video, last viewed at `at`. */
async function viewing(course: { id: string; videos: { id: string }[] }, at: string, firstName = 'Viewer') {
  const learner = await makeUser({ firstName })
  await assignCourse(learner.id, course.id)
  await recordProgress(learner, { courseId: course.id, videoId: course.videos[0].id, watched: [[0, 10]], position: 10 })
  await sql('UPDATE video_viewings SET last_viewed_at = $2 WHERE user_id = $1', [learner.id, at])
  return learner
}

/**
 * `learners` learners who each viewed every one of `videos` videos with titles of 10,000 characters,
 * at `at`: about 10 kB of CSV per row, so 100 learners × 40 videos make an export of about 40 MB
 * (eight 5 MB parts). Written set-based: a row at a time would take longer than the export.
 */
async function bigViewing({ learners = 100, videos = 40 }, at: string) {
  const course = await makeCourse({ title: `Big export ${Date.now() % 1e6}` })
  const stamp = `big${Date.now()}`
  await sql(
    `INSERT INTO content_entries (course_id, kind, order_id, title, embed_url, duration)
     SELECT $1, 'video', g, 'Long ' || g || repeat('x', 10000), 'https://www.youtube-nocookie.com/embed/x', 100
       FROM generate_series(1, $2) g`,
    [course.id, videos],
  )
  await sql(
    `INSERT INTO users (first_name, user_name, email, role_id)
     SELECT 'Big', $1 || g, $1 || g || '@example.com', 2 FROM generate_series(1, $2) g`,
    [stamp, learners],
  )
  await sql(
    `INSERT INTO video_viewings (user_id, video_id, course_id, last_viewed_at)
     SELECT u.id, e.id, e.course_id, $3 FROM users u CROSS JOIN content_entries e
      WHERE u.user_name LIKE $1 || '%' AND e.course_id = $2`,
    [stamp, course.id, at],
  )
  return course
}

/** Claim what is due at `now`, then run each claimed run's job as its last try: the runs as they ended. */
async function runDue(now: Date): Promise<ExportRunView[]> {
  const claimed = await claimDueRuns(now)
  const ended: ExportRunView[] = []
  for (const run of claimed) {
    await runExport(tryOf(run.id, { lastTry: true })).catch(() => {})
    ended.push(await findRun(SYSTEM, run.id))
  }
  return ended
}

beforeEach(async () => {
  await sql('DELETE FROM export_schedules')
})

afterEach(() => stopWorkers())

describe('a schedule', () => {
  const valid = { name: 'nightly', cron: '0 2 * * *', range: 'yesterday', destination: '/var/exports/' }

  async function refusal(input: Record<string, unknown>) {
    const error = await addSchedule(SYSTEM, { ...valid, ...input }).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(ZodError)
    return Object.fromEntries((error as ZodError).issues.map((i) => [i.path.join('.'), i.message]))
  }

  it('is refused with a message that says what is wrong', async () => {
    expect((await refusal({ cron: '61 2 * * *' })).cron).toMatch(
      /^Cron "61 2 \* \* \*" is not a valid schedule \(.*minute.*\); use five fields: minute hour/,
    )
    expect((await refusal({ cron: '0 2 * *' })).cron).toMatch(/not a valid schedule/)
    expect((await refusal({ cron: '0 0 30 2 *' })).cron).toMatch(/^Cron "0 0 30 2 \*" never runs/)
    expect((await refusal({ range: 'last-week' })).range).toBe(
      'Range must be one of yesterday, last-7-days, last-month, month-to-date.',
    )
    expect((await refusal({ destination: 'exports/' })).destination).toBe(
      'A folder destination must be an absolute path (such as /var/exports/), or use s3://bucket/prefix/.',
    )
    expect((await refusal({ destination: '/var/exports' })).destination).toMatch(/must end with \//)
    expect((await refusal({ destination: 's3://bucket/nightly' })).destination).toMatch(
      /An S3 destination is a prefix and must end with \//,
    )
    expect((await refusal({ format: 'xlsx' })).format).toBe('Format must be one of csv, jsonl.')
    expect((await refusal({ timeZone: 'Mars/Olympus' })).timeZone).toMatch(/IANA name/)
    expect((await refusal({ name: '../evil' })).name).toMatch(/letters, numbers, dots, dashes and underscores/)
    expect((await refusal({ courses: ['not-an-id'] }))['courses.0']).toBe('Courses must be course ids.')
    expect(await listSchedules(SYSTEM)).toEqual([])
  })

  it('is kept with its defaults, its name unique whatever the case, its courses known', async () => {
    const course = await makeCourse()
    // a folder must be there when the schedule is added, not found missing at its first run
    await expect(addSchedule(SYSTEM, valid)).rejects.toMatchObject({
      status: 400,
      errors: { destination: 'The folder /var/exports/ does not exist.' },
    })
    const here = { ...valid, destination: await folder() }
    const made = await addSchedule(SYSTEM, { ...here, courses: [course.id] })
    expect(made).toMatchObject({ name: 'nightly', timeZone: 'UTC', format: 'csv', courses: [course.id] })
    expect(made.nextRun).toMatch(/T02:00:00\.000Z$/)
    await expect(addSchedule(SYSTEM, { ...here, name: 'NIGHTLY' })).rejects.toMatchObject({
      status: 409,
      message: 'A schedule named NIGHTLY already exists.',
    })
    await expect(
      addSchedule(SYSTEM, { ...here, name: 'other', courses: ['00000000-0000-4000-8000-000000000000'] }),
    ).rejects.toMatchObject({ status: 400, errors: { courses: expect.stringContaining('There is no course') } })
    expect((await listSchedules(SYSTEM)).map((s) => s.name)).toEqual(['nightly'])
  })

  it('is managed by admins, read by coaches, and hidden from learners', async () => {
    const [admin, coach, learner] = await Promise.all([makeAdmin(), makeCoach(), makeLearner()])
    // from the admin area, a folder must be in the portal's exports folder; the CLI may name any
    await expect(addSchedule(admin, valid)).rejects.toMatchObject({
      status: 400,
      errors: { destination: expect.stringMatching(/^From the admin area a folder destination must be inside /) },
    })
    await expect(addSchedule(admin, { ...valid, destination: '/var/../etc/' })).rejects.toMatchObject({
      issues: [{ path: ['destination'], message: 'A folder destination may not contain "..".' }],
    })
    const inside = `${path.join(process.env.DATA_DIR!, 'exports', 'nightly')}/`
    await addSchedule(admin, { ...valid, destination: inside })
    expect((await stat(inside)).isDirectory()).toBe(true)
    expect((await listSchedules(coach)).map((s) => s.name)).toEqual(['nightly'])
    await expect(listRuns(coach)).resolves.toBeInstanceOf(Array)
    await expect(addSchedule(coach, { ...valid, name: 'coach' })).rejects.toMatchObject({ status: 403 })
    await expect(runSchedule(coach, 'nightly')).rejects.toMatchObject({ status: 403 })
    await expect(removeSchedule(coach, 'nightly')).rejects.toMatchObject({ status: 403 })
    await expect(listSchedules(learner)).rejects.toMatchObject({ status: 403 })
    await expect(listRuns(learner)).rejects.toMatchObject({ status: 403 })
    await expect(removeSchedule(admin, 'Nightly')).resolves.toEqual({ name: 'nightly' })
    await expect(removeSchedule(admin, 'nightly')).rejects.toMatchObject({ status: 404 })
  })
})

describe('running schedules', () => {
  it('writes the named file to a folder with the days of its slot', async () => {
    const course = await makeCourse({ title: 'Scheduled SQL', videos: [{ title: 'Joins', duration: 60 }] })
    await viewing(course, '2026-11-23T12:00:00Z', 'Yesterday')
    await viewing(course, '2026-11-24T01:00:00Z', 'Today')
    // lab attempts are rows of the log too, by the day of a learner's last attempt at an exercise
    const lab = await makeLab(course.id, { title: 'Scheduled lab', exercises: ['Two tables'] })
    const [labbed, late] = [await makeUser({ firstName: 'Labbed' }), await makeUser({ firstName: 'Late' })]
    await recordLabAttempt(labbed.id, lab.exercises[0].id, true, '2026-11-23T15:00:00Z')
    await recordLabAttempt(late.id, lab.exercises[0].id, true, '2026-11-24T01:30:00Z')
    const dir = await folder()
    await schedule({ name: 'nightly', courses: [course.id], destination: dir })

    const [run] = await runDue(NIGHT)
    const file = path.join(dir, 'nightly_2026-11-23_2026-11-23.csv')
    expect(run).toMatchObject({ status: 'succeeded', rows: 2, location: file, trigger: 'schedule' })
    expect(run.slot).toBe('2026-11-24T02:00:00.000Z')
    const text = await readFile(file, 'utf8')
    expect(run.bytes).toBe(Buffer.byteLength(text))
    const records = parse(text, { columns: true }) as Record<string, string>[]
    expect(records.map((r) => [r['First Name'], r.Kind, r['Exercise title'], r.Result])).toEqual([
      ['Labbed', 'lab', 'Two tables', 'Passed'],
      ['Yesterday', 'video', '', ''],
    ])
    expect(await readdir(dir)).toEqual(['nightly_2026-11-23_2026-11-23.csv'])
  })

  it('counts the days in the schedule’s time zone and writes JSON Lines when asked', async () => {
    const course = await makeCourse({ videos: [{ title: 'Keys' }] })
    // 23:30 on the 23rd in New York is already the 24th in UTC
    await viewing(course, '2026-11-24T04:30:00Z', 'Evening')
    const dir = await folder()
    await schedule({
      name: 'ny',
      cron: '0 2 * * *',
      timeZone: 'America/New_York',
      format: 'jsonl',
      courses: [course.id],
      destination: dir,
    })
    const [run] = await runDue(new Date('2026-11-24T07:00:00Z'))
    expect(run).toMatchObject({ status: 'succeeded', rows: 1, slot: '2026-11-24T07:00:00.000Z' })
    const lines = (await readFile(path.join(dir, 'ny_2026-11-23_2026-11-23.jsonl'), 'utf8')).trim().split('\n')
    expect(lines.map((l) => (JSON.parse(l) as { firstName: string }).firstName)).toEqual(['Evening'])
  })

  it('runs a slot once when a second runner claims it while the first runner’s claim is not yet committed', async () => {
    const dir = await folder()
    const made = await schedule({ name: 'raced', destination: dir, courses: [(await makeCourse()).id] })
    const db = await sequelize()
    // the first runner has written its claim on one connection and not committed it yet: the moment
    // when a second runner that reads the runs sees no claim at all
    const first = await db.transaction()
    let second: Promise<ExportRunView[]> | undefined
    try {
      expect(await claimSlot(made.id, new Date('2026-11-24T02:00:00Z'), first)).toEqual(expect.any(String))
      let settled = false
      second = runDue(NIGHT).finally(() => {
        settled = true
      })
      // barrier: the second runner, on another connection, has finished or is waiting on the first's row
      await vi.waitFor(
        async () => {
          if (settled) return
          const waiting = await db.query(
            `SELECT pid FROM pg_stat_activity
              WHERE wait_event_type = 'Lock' AND query LIKE '%INSERT INTO export_runs%' AND pid <> pg_backend_pid()`,
            { type: QueryTypes.SELECT },
          )
          expect(waiting).toHaveLength(1)
        },
        { timeout: 10_000 },
      )
      await first.commit()
    } catch (error) {
      await first.rollback()
      throw error
    }
    // the second runner lost the slot: it exported nothing and wrote no run
    expect(await second).toEqual([])
    const [claimed] = await runsOf('raced')
    expect(claimed).toMatchObject({ slot: '2026-11-24T02:00:00.000Z', status: 'queued' })
    // the winner's claim came with its job, in the same transaction
    expect(await jobOf(claimed.id)).toMatchObject({ name: 'export-run', state: 'created' })
    expect(await readdir(dir)).toEqual([])
  })

  it('writes one run and one file when two runners look for due work at once', async () => {
    const dir = await folder()
    await schedule({ name: 'together', destination: dir, courses: [(await makeCourse()).id] })
    const [first, second] = await Promise.all([runDue(NIGHT), runDue(NIGHT)])
    expect([...first, ...second].map((r) => r.scheduleName)).toEqual(['together'])
    expect(await runsOf('together')).toHaveLength(1)
    expect(await readdir(dir)).toEqual(['together_2026-11-23_2026-11-23.csv'])
  })

  it('catches up only the latest missed slot, once, and then waits for the next', async () => {
    const dir = await folder()
    await schedule({ name: 'missed', destination: dir, courses: [(await makeCourse()).id] })
    // made in January, nothing ran since: only the night of the 24th November runs
    const first = await runDue(NIGHT)
    expect(first.map((r) => [r.scheduleName, r.slot])).toEqual([['missed', '2026-11-24T02:00:00.000Z']])
    expect(await runDue(NIGHT)).toEqual([])
    expect(await runDue(new Date('2026-11-24T23:59:00Z'))).toEqual([])
    const next = await runDue(new Date('2026-11-25T02:00:00Z'))
    expect(next.map((r) => r.slot)).toEqual(['2026-11-25T02:00:00.000Z'])
    // an older slot seen late (a slow clock elsewhere) is not run behind a newer one
    expect(await runDue(new Date('2026-11-24T02:00:00Z'))).toEqual([])
    expect(await runsOf('missed')).toHaveLength(2)
    expect((await readdir(dir)).sort()).toEqual([
      'missed_2026-11-23_2026-11-23.csv',
      'missed_2026-11-24_2026-11-24.csv',
    ])
  })

  it('does not run a slot from before the schedule was made', async () => {
    const dir = await folder()
    const made = await addSchedule(SYSTEM, { name: 'fresh', cron: '0 2 * * *', range: 'yesterday', destination: dir })
    await sql(`UPDATE export_schedules SET created_at = '2026-11-24T03:00:00Z' WHERE id = $1`, [made.id])
    expect(await runDue(new Date('2026-11-24T10:00:00Z'))).toEqual([])
    expect((await runDue(new Date('2026-11-25T02:00:00Z'))).map((r) => r.scheduleName)).toEqual(['fresh'])
  })

  it('records a failure in one line, and does not run its slot again', async () => {
    // a folder that was there when the schedule was added, and is gone since
    const gone = await folder()
    await schedule({ name: 'broken', destination: gone })
    await rm(gone, { recursive: true })
    const [run] = await runDue(NIGHT)
    expect(run).toMatchObject({
      status: 'failed',
      rows: null,
      error: `The folder ${gone.slice(0, -1)} does not exist.`,
      location: `${gone}broken_2026-11-23_2026-11-23.csv`,
    })
    expect(run.finishedAt).not.toBeNull()
    expect(await runDue(new Date('2026-11-24T02:30:00Z'))).toEqual([])
    await expect(openRunFile(SYSTEM, run.id)).rejects.toMatchObject({ status: 404 })
  })

  it('keeps a run whose try failed queued with its error until its next try, which may succeed', async () => {
    const gone = await folder()
    await schedule({ name: 'flaky-folder', destination: gone })
    await rm(gone, { recursive: true })
    const [claimed] = await claimDueRuns(NIGHT)
    await expect(runExport(tryOf(claimed.id))).rejects.toThrow(`The folder ${gone.slice(0, -1)} does not exist.`)
    expect(await findRun(SYSTEM, claimed.id)).toMatchObject({
      status: 'queued',
      finishedAt: null,
      error: `The folder ${gone.slice(0, -1)} does not exist. (it is tried again shortly)`,
    })
    // the folder is back by the second try
    await mkdir(gone)
    await runExport(tryOf(claimed.id, { retryCount: 1 }))
    expect(await findRun(SYSTEM, claimed.id)).toMatchObject({ status: 'succeeded', error: null })
    expect(await readdir(gone)).toEqual(['flaky-folder_2026-11-23_2026-11-23.csv'])
  })

  it('fails a run whose job was given up or cancelled, and queues it again when the job is retried', async () => {
    const dir = await folder()
    await schedule({ name: 'given-up', destination: dir })
    const [claimed] = await claimDueRuns(NIGHT)
    await exportRunJobs.gaveUp?.(claimed.id, 'The worker running it stopped answering.')
    expect(await findRun(SYSTEM, claimed.id)).toMatchObject({
      status: 'failed',
      error: 'The worker running it stopped answering.',
    })
    await exportRunJobs.reopened?.(claimed.id)
    expect(await findRun(SYSTEM, claimed.id)).toMatchObject({ status: 'queued', finishedAt: null })
    await exportRunJobs.cancelled?.(claimed.id)
    expect(await findRun(SYSTEM, claimed.id)).toMatchObject({ status: 'failed', error: 'Cancelled by an operator.' })
    // a stray try of a cancelled run changes nothing
    await runExport(tryOf(claimed.id))
    expect(await readdir(dir)).toEqual([])
  })

  it('fails a run whose schedule was removed before its job ran', async () => {
    await schedule({ name: 'removed', destination: await folder() })
    const [claimed] = await claimDueRuns(NIGHT)
    await removeSchedule(SYSTEM, 'removed')
    await runExport(tryOf(claimed.id))
    expect(await findRun(SYSTEM, claimed.id)).toMatchObject({
      status: 'failed',
      error: 'The schedule was removed before this run started.',
    })
  })

  it('runs by hand at any time as a queued job, counting the days from when it was asked, beside the scheduled runs', async () => {
    const dir = await folder()
    await schedule({ name: 'manual', range: 'last-month', destination: dir })
    const queued = await runSchedule(SYSTEM, 'manual', { now: new Date('2026-11-10T15:00:00Z') })
    expect(queued).toMatchObject({ status: 'queued', trigger: 'manual', slot: null })
    expect(await jobOf(queued.id)).toMatchObject({ name: 'export-run', state: 'created' })
    await runExport(tryOf(queued.id))
    expect(await findRun(SYSTEM, queued.id)).toMatchObject({ status: 'succeeded', trigger: 'manual' })
    expect(await readdir(dir)).toEqual(['manual_2026-10-01_2026-10-31.csv'])
    // a manual run does not stand for a slot: the night's slot still runs
    expect((await runDue(NIGHT)).map((r) => r.trigger)).toEqual(['schedule'])
    await expect(runSchedule(SYSTEM, 'nothing')).rejects.toMatchObject({ status: 404 })
  })

  it('keeps the history of a removed schedule under its name', async () => {
    const dir = await folder()
    await schedule({ name: 'gone', destination: dir })
    await runDue(NIGHT)
    await removeSchedule(SYSTEM, 'gone')
    expect(await runsOf('gone')).toMatchObject([{ scheduleId: null, status: 'succeeded' }])
  })
})

describe('the workers', () => {
  it('claim a slot missed while the portal was down once, however many look at once, and write its file', async () => {
    const dir = await folder()
    const made = await addSchedule(SYSTEM, { name: 'served', cron: '0 2 * * *', range: 'yesterday', destination: dir })
    await sql(`UPDATE export_schedules SET created_at = now() - interval '30 days' WHERE id = $1`, [made.id])
    // two worker processes, each taking a look at the same moment (the minute's look is one job; two
    // looks race here, as two minutes' looks would after a long stop)
    await Promise.all([startWorkers(['export-look', 'export-run']), startWorkers(['export-look', 'export-run'])])
    await Promise.all([jobLibrary().send('export-look', {}), jobLibrary().send('export-look', {})])
    const [run] = await eventually(async () => {
      const runs = await runsOf('served')
      return runs.length > 0 && runs.every((r) => r.status === 'succeeded') && runs
    })
    expect(run).toMatchObject({ trigger: 'schedule', status: 'succeeded' })
    // the run's record is written by its handler, the job's end by the library just after
    expect(await eventually(async () => (await jobOf(run.id))?.state === 'completed' || undefined)).toBe(true)
    // a later look (a restart, or a second instance) finds the slot done
    await jobLibrary().send('export-look', {})
    await eventually(async () => {
      const [look] = await sequelize().then((db) =>
        db.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM pgboss.job WHERE name = 'export-look' AND state = 'completed'`,
          { type: QueryTypes.SELECT },
        ),
      )
      return look.n === 3
    })
    expect(await runsOf('served')).toHaveLength(1)
    expect(await readdir(dir)).toHaveLength(1)
  })
})

describe('exports to S3', () => {
  const running = useS3rver()

  const objects = async (bucket = S3_TEST_BUCKET) => {
    const client = makeS3Client(running().options)
    try {
      const listed = await client.send(new ListObjectsV2Command({ Bucket: bucket }))
      return (listed.Contents ?? []).map((o) => o.Key)
    } finally {
      client.destroy()
    }
  }

  it('uploads the named object under the prefix, and the run’s file reads back from S3', async () => {
    const course = await makeCourse({ videos: [{ title: 'Buckets' }] })
    await viewing(course, '2026-11-23T09:00:00Z', 'Cloudy')
    await schedule({ name: 'cloud', courses: [course.id], destination: `s3://${S3_TEST_BUCKET}/exports/nightly/` })
    const [run] = await runDue(NIGHT)
    expect(run).toMatchObject({
      status: 'succeeded',
      rows: 1,
      location: `s3://${S3_TEST_BUCKET}/exports/nightly/cloud_2026-11-23_2026-11-23.csv`,
    })
    expect(await objects()).toContain('exports/nightly/cloud_2026-11-23_2026-11-23.csv')
    const client = makeS3Client(running().options)
    const stored = await client.send(
      new GetObjectCommand({ Bucket: S3_TEST_BUCKET, Key: 'exports/nightly/cloud_2026-11-23_2026-11-23.csv' }),
    )
    client.destroy()
    const file = await openRunFile(SYSTEM, run.id)
    expect(file).toMatchObject({ fileName: 'cloud_2026-11-23_2026-11-23.csv', contentType: 'text/csv; charset=utf-8' })
    const body = (await readBody(file.body)).toString('utf8')
    expect(body).toContain('Cloudy')
    expect(body).toBe(await stored.Body?.transformToString())
  })

  it('records a failed upload to a missing bucket in one line, without credentials, and leaves no object', async () => {
    await schedule({ name: 'nobucket', destination: 's3://no-such-bucket/exports/' })
    const [run] = await runDue(NIGHT)
    expect(run.status).toBe('failed')
    expect(run.error).toBe(
      'Uploading to s3://no-such-bucket/exports/nobucket_2026-11-23_2026-11-23.csv failed: the bucket does not exist',
    )
    expect(run.error).not.toMatch(/\n|S3RVER|Signature|Credential/)
    expect((await objects()).filter((key) => key?.includes('nobucket'))).toEqual([])
    await expect(objects('no-such-bucket')).rejects.toMatchObject({ name: 'NoSuchBucket' })
    const [stored] = await runsOf('nobucket')
    expect(stored).toMatchObject({ status: 'failed', error: run.error })
  })

  it('records an upload that S3 starts refusing after two parts were stored, aborts it, and leaves no object', async () => {
    const course = await bigViewing({}, '2026-11-23T09:00:00Z')
    await schedule({ name: 'flaky', courses: [course.id], destination: `s3://${S3_TEST_BUCKET}/exports/flaky/` })
    // parts 1 and 2 are stored; every later part (and its retries) is refused once those two are in,
    // while the export still has most of its 40 MB to write
    const recorder: S3Recorder = await startS3Recorder(running(), async (part) => {
      if (part <= 2) return 'store'
      await recorder.until(() => recorder.storedParts().length === 2)
      return 'fail'
    })
    const restore = recorder.use()
    let run: ExportRunView | undefined
    try {
      ;[run] = await runDue(NIGHT)
    } finally {
      restore()
      await recorder.close()
    }
    const key = 'exports/flaky/flaky_2026-11-23_2026-11-23.csv'
    expect(run).toMatchObject({
      status: 'failed',
      rows: null,
      bytes: null,
      location: `s3://${S3_TEST_BUCKET}/${key}`,
      error: `Uploading to s3://${S3_TEST_BUCKET}/${key} failed: We encountered an internal error. Please try again.`,
    })
    expect(await runsOf('flaky')).toMatchObject([{ status: 'failed', error: run?.error }])

    // the upload was a multipart one with parts stored, never completed, and aborted (s3rver implements
    // neither ListMultipartUploads nor AbortMultipartUpload: see tests/fixtures/s3-recorder.ts)
    const parts = recorder.calls.filter((c) => c.op === 'part')
    expect(recorder.calls.filter((c) => c.op === 'create')).toHaveLength(1)
    expect(recorder.storedParts().sort()).toEqual([1, 2])
    expect(parts.some((c) => c.status === 500)).toBe(true)
    expect(new Set(parts.map((c) => c.uploadId)).size).toBe(1)
    expect(recorder.calls.filter((c) => c.op === 'complete')).toEqual([])
    expect(recorder.calls.filter((c) => c.op === 'abort')).toEqual([
      expect.objectContaining({ key: `/${S3_TEST_BUCKET}/${key}`, uploadId: parts[0].uploadId, status: 204 }),
    ])
    expect((await objects()).filter((k) => k?.includes('flaky'))).toEqual([])
  })
})
