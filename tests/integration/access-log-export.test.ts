import { mkdtemp, readFile, readdir, stat, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { GetObjectCommand, ListObjectsV2Command } from '@aws-sdk/client-s3'
import { parse } from 'csv-parse/sync'
import { describe, expect, it } from 'vitest'
import {
  EXPORT_HEADERS,
  exportAccessLog,
  parseDestination,
  writeAccessLog,
} from '#app/modules/access-log/export.server.ts'
import { accessLogReport } from '#app/modules/access-log/service.server.ts'
import { SYSTEM } from '#app/modules/auth/roles.ts'
import { neutraliseFormula } from '#app/modules/csv/formula.ts'
import { makeS3Client } from '#app/modules/files/s3-storage.server.ts'
import { recordProgress } from '#app/modules/progress/service.server.ts'
import * as exportRoute from '#app/routes/admin+/accesslog_.export.ts'
import { sequelize } from '#db/client.ts'
import { portal } from '#tests/cli.ts'
import {
  assignCourse,
  makeAdmin,
  makeCoach,
  makeCourse,
  makeLab,
  makeLearner,
  makeUser,
  recordLabAttempt,
  recordWatched,
} from '#tests/factories.ts'
import { memorySink, readBody, S3_TEST_BUCKET, startS3rver, useS3rver } from '#tests/fixtures/files.ts'
import { startS3Recorder } from '#tests/fixtures/s3-recorder.ts'
import { call } from '#tests/requests.ts'
import { sessionCookieFor } from '#tests/sessions.ts'

type Row = Record<string, string>

/** `count` videos with 10 kB titles in the course, written set-based: every row of an export of them is long. */
async function addLongVideos(courseId: string, count: number) {
  const sql = await sequelize()
  await sql.query(
    `INSERT INTO content_entries (course_id, kind, order_id, title, embed_url, duration)
     SELECT :course, 'video', g, 'Long ' || g || repeat('x', 10000), 'https://www.youtube-nocookie.com/embed/x', 100
       FROM generate_series(1, :count) g`,
    { replacements: { course: courseId, count } },
  )
}

const csvRows = (text: string) => parse(text, { columns: true }) as Row[]

async function exportText(input: object, format: 'csv' | 'jsonl' = 'csv') {
  const { sink, text } = memorySink()
  const progress = await writeAccessLog(SYSTEM, input, sink, { format })
  return { ...progress, text: text() }
}

/** The report's rows (both kinds, as the exports carry them) as the export's columns name them, to compare the two. */
async function reportRows(input: object) {
  const { rows } = await accessLogReport(SYSTEM, { ...input, includeLabs: true })
  // the report shows names as typed; the CSV defuses those a spreadsheet would run
  return rows.map((r) => ({
    email: neutraliseFormula(r.email),
    course: neutraliseFormula(r.courseName),
    video: 'lab' in r ? '' : neutraliseFormula(r.chapter),
    progress: 'lab' in r ? '' : String(r.videoProgress),
    exercise: 'lab' in r ? neutraliseFormula(r.exercise) : '',
    lastViewed: r.lastViewed,
  }))
}
const exportedRows = (records: Row[]) =>
  records.map((r) => ({
    email: r['Email ID'],
    course: r['Course Name'],
    video: r['Video title'],
    progress: r['Video Progress'],
    exercise: r['Exercise title'],
    lastViewed: r['Last Viewed'],
  }))

const setViewedAt = async (userId: string, courseId: string, at: string) =>
  (await sequelize()).query(
    'UPDATE video_progress SET updated_at = :at WHERE user_id = :userId AND course_id = :courseId',
    {
      replacements: { at, userId, courseId },
    },
  )

/** Two courses, three learners, viewings spread over March 2026. */
async function viewings() {
  const stamp = Date.now() % 1e6
  const sql = await makeCourse({
    title: `Export SQL ${stamp}`,
    videos: [
      { title: 'Select', duration: 100 },
      { title: 'Join', duration: 200 },
    ],
  })
  const etl = await makeCourse({ title: `Export ETL ${stamp}`, videos: [{ title: 'Extract', duration: 300 }] })
  const learners = [await makeLearner(), await makeLearner(), await makeLearner()]
  const at = ['2026-03-02T08:00:00Z', '2026-03-10T23:30:00Z', '2026-03-20T12:00:00Z']
  for (const [i, learner] of learners.entries()) {
    for (const course of [sql, etl]) {
      await assignCourse(learner.id, course.id)
      for (const video of course.videos) await recordWatched(learner.id, course.id, video, 10 * (i + 1))
      await setViewedAt(learner.id, course.id, at[i])
    }
  }
  return { sql, etl, learners }
}

describe('the access-log export', () => {
  it('writes the report’s rows for a filter to a file, with formula cells neutralised', async () => {
    const learner = await makeUser({ firstName: '=HYPERLINK("http://evil")' })
    const course = await makeCourse({ title: `Export ${Date.now() % 1e6}`, videos: [{ title: '+Sum', duration: 100 }] })
    await assignCourse(learner.id, course.id)
    await recordProgress(learner, {
      courseId: course.id,
      videoId: course.videos[0].id,
      watched: [[0, 20]],
      position: 20,
    })
    const admin = await makeAdmin()
    const dir = await mkdtemp(path.join(os.tmpdir(), 'portal-export-'))
    const target = path.join(dir, 'log.csv')
    const result = await exportAccessLog(admin, { courses: [course.id] }, parseDestination(target))
    expect(result.rows).toBe(1)
    const records = parse(await readFile(target, 'utf8'), { columns: true }) as Record<string, string>[]
    const { rows } = await accessLogReport(admin, { courses: [course.id] })
    expect(records.map((r) => r['Email ID'])).toEqual(rows.map((r) => r.email))
    expect(records[0]['First Name']).toBe('\'=HYPERLINK("http://evil")')
    expect(records[0]['Video title']).toBe("'+Sum")
    expect(await readdir(dir)).toEqual(['log.csv'])
  })

  it('holds exactly the report’s rows, in its order, for filters by course, by day and by time zone', async () => {
    const { sql, etl, learners } = await viewings()
    // lab rows among them: 5 March, and 23:30 on 11 March in Berlin
    const lab = await makeLab(sql.id, { exercises: ['Filter rows'] })
    await recordLabAttempt(learners[0].id, lab.exercises[0].id, true, '2026-03-05T10:00:00Z')
    await recordLabAttempt(learners[2].id, lab.exercises[0].id, false, '2026-03-11T22:30:00Z')
    const filters = [
      { courses: [sql.id] },
      { courses: [etl.id, sql.id] },
      { courses: [sql.id, etl.id], startDate: '2026-03-02', endDate: '2026-03-10' },
      { courses: [sql.id], startDate: '03/11/2026' },
      { courses: [etl.id], endDate: '2026-03-10' },
      // 23:30 UTC on 10 March is 11 March in Berlin
      { courses: [sql.id, etl.id], startDate: '2026-03-11', endDate: '2026-03-11', timeZone: 'Europe/Berlin' },
      { startDate: '2026-03-01', endDate: '2026-03-31' },
      {},
    ]
    const sizes: number[] = []
    for (const filter of filters) {
      const exported = await exportText(filter)
      const records = csvRows(exported.text)
      expect(exportedRows(records), JSON.stringify(filter)).toEqual(await reportRows(filter))
      expect(exported.rows).toBe(records.length)
      expect(exported.bytes).toBe(Buffer.byteLength(exported.text))
      sizes.push(records.length)
    }
    // the filters really differ: a broken filter would export everything (or nothing) each time
    expect(sizes.slice(0, 6)).toEqual([8, 11, 7, 3, 2, 4])
    const empty = await exportText({ courses: [sql.id], startDate: '2027-01-01' })
    expect(empty.rows).toBe(0)
    expect(empty.text).toBe(`${EXPORT_HEADERS.join(',')}\r\n`)
  })

  it('neutralises formula cells and quotes commas, quotes and line breaks so they read back unchanged', async () => {
    const names = ['=1+2', '+44 20', '-5', '@SUM(A1)', '\tTabbed', '\rReturn', 'Comma, Ltd', 'Say "hi"', 'Two\nLines']
    const course = await makeCourse({
      title: `Quoting, "all" ${Date.now() % 1e6}`,
      videos: [{ title: 'Q', duration: 10 }],
    })
    for (const firstName of names) {
      const learner = await makeUser({ firstName })
      await assignCourse(learner.id, course.id)
      await recordWatched(learner.id, course.id, course.videos[0], 5)
    }
    const { text } = await exportText({ courses: [course.id] })
    // RFC 4180: CRLF between records, fields with a comma, quote or line break in quotes, quotes doubled
    expect(text).toContain('"Say ""hi"""')
    expect(text).toContain('"Two\nLines"')
    expect(text).toContain(`"'\rReturn"`)
    expect(text.split('\r\n')[0]).toBe(EXPORT_HEADERS.join(','))
    const records = csvRows(text)
    expect(records.map((r) => r['First Name']).sort()).toEqual(
      ["'=1+2", "'+44 20", "'-5", "'@SUM(A1)", "'\tTabbed", "'\rReturn", 'Comma, Ltd', 'Say "hi"', 'Two\nLines'].sort(),
    )
    expect(new Set(records.map((r) => r['Course Name']))).toEqual(new Set([course.title]))
  })

  it('writes JSON Lines: one object per row with the raw values', async () => {
    const { sql } = await viewings()
    const learner = await makeUser({ firstName: '=cmd' })
    await assignCourse(learner.id, sql.id)
    await recordWatched(learner.id, sql.id, sql.videos[0], 42)
    const { text, rows } = await exportText({ courses: [sql.id] }, 'jsonl')
    const lines = text.trimEnd().split('\n')
    expect(lines).toHaveLength(rows)
    const objects = lines.map((line) => JSON.parse(line) as Record<string, unknown>)
    const report = await accessLogReport(SYSTEM, { courses: [sql.id] })
    expect(objects.map((o) => [o.email, o.videoTitle, o.lastViewed])).toEqual(
      report.rows.map((r) => [r.email, r.chapter, r.lastViewed]),
    )
    // no spreadsheet reads JSON: the value is kept as typed
    expect(objects[0]).toMatchObject({ firstName: '=cmd', videoProgress: 42, courseId: sql.id, learnerId: learner.id })
  })

  it('is for the admin side only', async () => {
    const learner = await makeLearner()
    const { sink } = memorySink()
    await expect(writeAccessLog(learner, {}, sink)).rejects.toMatchObject({ status: 403 })
    const dir = await mkdtemp(path.join(os.tmpdir(), 'portal-export-'))
    await expect(exportAccessLog(learner, {}, parseDestination(path.join(dir, 'x.csv')))).rejects.toMatchObject({
      status: 403,
    })
    expect(await readdir(dir)).toEqual([])
    // coaches read the access log, so they may export it
    const coach = await makeCoach()
    await expect(writeAccessLog(coach, {}, memorySink().sink)).resolves.toMatchObject({ rows: expect.any(Number) })
  })

  it('leaves nothing behind when the target cannot be written or the export stops part-way', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'portal-export-'))
    await expect(exportAccessLog(SYSTEM, {}, parseDestination(path.join(dir, 'missing', 'x.csv')))).rejects.toThrow(
      /does not exist/,
    )
    await writeFile(path.join(dir, 'plain-file'), 'x')
    await expect(exportAccessLog(SYSTEM, {}, parseDestination(path.join(dir, 'plain-file', 'x.csv')))).rejects.toThrow(
      /does not exist/,
    )
    await expect(exportAccessLog(SYSTEM, {}, parseDestination(dir))).rejects.toThrow(/is a folder/)
    // a file already there stays as it was when a new export fails
    const target = path.join(dir, 'log.csv')
    await writeFile(target, 'the previous export\n')
    const stopped = new AbortController()
    stopped.abort(new Error('stopped'))
    await expect(
      exportAccessLog(SYSTEM, {}, parseDestination(target), { signal: stopped.signal }),
    ).rejects.toMatchObject({ name: 'AbortError' })
    expect(await readFile(target, 'utf8')).toBe('the previous export\n')
    await expect(exportAccessLog(SYSTEM, {}, parseDestination(target), { format: 'xml' as never })).rejects.toThrow(
      /Format must be one of csv, jsonl/,
    )
    expect((await readdir(dir)).sort()).toEqual(['log.csv', 'plain-file'])
  })
})

describe('the access-log export to S3', () => {
  const running = useS3rver({ uploads: false })

  const objectKeys = async (prefix: string) => {
    const client = makeS3Client(running().options)
    try {
      const listed = await client.send(new ListObjectsV2Command({ Bucket: S3_TEST_BUCKET, Prefix: prefix }))
      return (listed.Contents ?? []).map((o) => o.Key)
    } finally {
      client.destroy()
    }
  }

  it('lands the object with the rows', async () => {
    const { sql } = await viewings()
    const key = `exports/${Date.now()}/access-log.csv`
    const result = await exportAccessLog(
      SYSTEM,
      { courses: [sql.id] },
      parseDestination(`s3://${S3_TEST_BUCKET}/${key}`),
    )
    expect(result).toMatchObject({ rows: 6, location: `s3://${S3_TEST_BUCKET}/${key}` })
    const client = makeS3Client(running().options)
    const object = await client.send(new GetObjectCommand({ Bucket: S3_TEST_BUCKET, Key: key }))
    client.destroy()
    expect(object.ContentType).toBe('text/csv; charset=utf-8')
    const records = csvRows((await readBody(object.Body as never)).toString('utf8'))
    expect(exportedRows(records)).toEqual(await reportRows({ courses: [sql.id] }))
  })

  it('fails in one line without credentials and leaves no object when the upload or the export fails', async () => {
    const missing = exportAccessLog(SYSTEM, {}, parseDestination('s3://no-such-bucket/x.csv'))
    await expect(missing).rejects.toThrow('Uploading to s3://no-such-bucket/x.csv failed: the bucket does not exist')
    const message = await missing.catch((error: Error) => error.message)
    expect(message).not.toContain('\n')
    expect(message).not.toContain(running().env.S3_SECRET_ACCESS_KEY)
    expect(message).not.toContain(running().env.S3_ACCESS_KEY_ID)

    const prefix = `stopped/${Date.now()}/`
    const stopped = new AbortController()
    stopped.abort(new Error('stopped'))
    await expect(
      exportAccessLog(SYSTEM, {}, parseDestination(`s3://${S3_TEST_BUCKET}/${prefix}x.csv`), {
        signal: stopped.signal,
      }),
    ).rejects.toMatchObject({ name: 'AbortError' })
    expect(await objectKeys(prefix)).toEqual([])
  })

  it('aborts the multipart upload before it returns when the export stops after parts were stored', async () => {
    // about 40 MB of rows (100 learners × 40 videos × 10 kB), written set-based
    const course = await makeCourse({ title: `Export stopped ${Date.now() % 1e6}` })
    const stamp = `stopped${Date.now()}`
    const sql = await sequelize()
    await addLongVideos(course.id, 40)
    await sql.query(
      `INSERT INTO users (first_name, user_name, email, role_id)
       SELECT 'Stopped', :stamp || g, :stamp || g || '@example.com', 2 FROM generate_series(1, 100) g`,
      { replacements: { stamp } },
    )
    await sql.query(
      `INSERT INTO video_viewings (user_id, video_id, course_id, last_viewed_at)
       SELECT u.id, e.id, e.course_id, now() FROM users u CROSS JOIN content_entries e
        WHERE u.user_name LIKE :stamp || '%' AND e.course_id = :course`,
      { replacements: { stamp, course: course.id } },
    )
    // parts 1 and 2 are stored; later parts wait until the export has been stopped, so it cannot end first
    let release = () => {}
    const released = new Promise<void>((resolve) => (release = resolve))
    const recorder = await startS3Recorder(running(), async (part) => {
      if (part > 2) await released
      return 'store' as const
    })
    const restore = recorder.use()
    const key = `stopped/${Date.now()}/access-log.csv`
    const stop = new AbortController()
    try {
      const exported = exportAccessLog(
        SYSTEM,
        { courses: [course.id] },
        parseDestination(`s3://${S3_TEST_BUCKET}/${key}`),
        { signal: stop.signal },
      )
      exported.catch(() => undefined)
      await recorder.until(() => recorder.storedParts().length === 2)
      stop.abort(new Error('stopped'))
      release()
      await expect(exported).rejects.toMatchObject({ name: 'AbortError' })
      // by the time the export has failed, the upload it began has been aborted, never completed
      const parts = recorder.calls.filter((c) => c.op === 'part')
      expect(recorder.storedParts().slice(0, 2).sort()).toEqual([1, 2])
      expect(recorder.calls.filter((c) => c.op === 'complete')).toEqual([])
      expect(recorder.calls.filter((c) => c.op === 'abort')).toEqual([
        expect.objectContaining({ key: `/${S3_TEST_BUCKET}/${key}`, uploadId: parts[0].uploadId, status: 204 }),
      ])
    } finally {
      release()
      restore()
      await recorder.close()
    }
    expect(await objectKeys(key)).toEqual([])
  })

  it('uploads more than one part of rows, and fails such an upload in one line too', async () => {
    // about 6 MB of rows: more than the 5 MB first part, so the upload is a multipart one
    const course = await makeCourse({ title: `Export big ${Date.now() % 1e6}` })
    const learner = await makeLearner()
    const sql = await sequelize()
    await addLongVideos(course.id, 600)
    await sql.query(
      `INSERT INTO video_viewings (user_id, video_id, course_id, last_viewed_at)
       SELECT :learner, id, course_id, now() FROM content_entries WHERE course_id = :course`,
      { replacements: { learner: learner.id, course: course.id } },
    )
    await expect(
      exportAccessLog(SYSTEM, { courses: [course.id] }, parseDestination('s3://no-such-bucket/big.csv')),
    ).rejects.toThrow('the bucket does not exist')
    const big = await exportAccessLog(
      SYSTEM,
      { courses: [course.id] },
      parseDestination(`s3://${S3_TEST_BUCKET}/big/${Date.now()}.csv`),
    )
    expect(big.rows).toBe(600)
    expect(big.bytes).toBeGreaterThan(5 * 1024 * 1024)
  })
})

describe('GET /admin/accesslog/export', () => {
  const download = (query: string, cookie?: string) =>
    call(exportRoute.loader as never, `/admin/accesslog/export${query}`, {
      headers: cookie ? { Cookie: cookie } : {},
    })

  it('streams every row of the page’s filter as a CSV download, for admins and coaches', async () => {
    const { sql, etl } = await viewings()
    const coach = await sessionCookieFor((await makeCoach()).userName)
    const response = await download(`?course=${sql.id}&course=${etl.id}&startDate=2026-03-02&endDate=2026-03-10`, coach)
    expect(response.status).toBe(200)
    expect(response.headers.get('Content-Type')).toBe('text/csv; charset=utf-8')
    expect(response.headers.get('Content-Disposition')).toBe(
      'attachment; filename="access-log-2026-03-02-2026-03-10.csv"',
    )
    expect(response.headers.get('Cache-Control')).toBe('no-store')
    const records = csvRows(await response.text())
    const filter = { courses: [sql.id, etl.id], startDate: '2026-03-02', endDate: '2026-03-10' }
    expect(records).toHaveLength(6)
    expect(exportedRows(records)).toEqual(await reportRows(filter))

    const admin = await sessionCookieFor((await makeAdmin()).userName)
    // every row, not the page's page: its paging parameters are ignored
    const all = await download(`?course=${sql.id}&course=${etl.id}&size=7&page=2`, admin)
    expect(csvRows(await all.text())).toHaveLength(9)
    const jsonl = await download(`?course=${sql.id}&format=jsonl`, admin)
    expect(jsonl.headers.get('Content-Type')).toBe('application/x-ndjson; charset=utf-8')
    expect(jsonl.headers.get('Content-Disposition')).toBe('attachment; filename="access-log-all.jsonl"')
    expect((await jsonl.text()).trimEnd().split('\n')).toHaveLength(6)
  })

  it('answers a wrong filter with 400 and what is wrong', async () => {
    const admin = await sessionCookieFor((await makeAdmin()).userName)
    const backwards = await download('?startDate=2026-04-02&endDate=2026-04-01', admin)
    expect(backwards.status).toBe(400)
    expect(await backwards.text()).toBe('End date must not be before the start date.\n')
    const notADay = await download('?startDate=2026-02-30', admin)
    expect(notADay.status).toBe(400)
    expect(await notADay.text()).toContain('Start date must be a date.')
    expect((await download('?course=nope', admin)).status).toBe(400)
    expect((await download('?format=xlsx', admin)).status).toBe(400)
  })

  it('sends visitors to sign in and learners away, as the page does', async () => {
    const anonymous = await download('')
    expect(anonymous.status).toBe(302)
    expect(anonymous.headers.get('Location')).toMatch(/^\/sign-in/)
    const learner = await sessionCookieFor((await makeLearner()).userName)
    const refused = await download('', learner)
    expect(refused.status).toBe(302)
    expect(refused.headers.get('Location')).toBe('/courses')
    expect(await refused.text()).not.toContain('Email ID')
  })
})

// each run starts the real CLI (a second or more on a busy machine)
describe('portal export access-log', { timeout: 120_000 }, () => {
  it('writes only the rows on standard output with --out -', async () => {
    const { sql, learners } = await viewings()
    const lab = await makeLab(sql.id, { exercises: ['Group by'] })
    await recordLabAttempt(learners[1].id, lab.exercises[0].id, false, '2026-03-15T10:00:00Z')
    const result = await portal([
      'export',
      'access-log',
      '--course',
      sql.title,
      '--from',
      '2026-03-01',
      '--to',
      '2026-03-31',
    ])
    expect(result).toMatchObject({ code: 0, stderr: '' })
    expect(exportedRows(csvRows(result.stdout))).toEqual(
      await reportRows({ courses: [sql.id], startDate: '2026-03-01', endDate: '2026-03-31' }),
    )
    // the lab row among the video rows
    expect(csvRows(result.stdout).map((r) => r.Kind)).toEqual([
      'video',
      'video',
      'lab',
      'video',
      'video',
      'video',
      'video',
    ])
  })

  it('writes a file and prints a summary: one line on stderr, or JSON with --json', async () => {
    const { sql, etl } = await viewings()
    const dir = await mkdtemp(path.join(os.tmpdir(), 'portal-export-cli-'))
    const target = path.join(dir, 'march.jsonl')
    const args = ['export', 'access-log', '--course', sql.id, '--course', etl.title, '--format', 'jsonl']
    const json = await portal([...args, '--from', '2026-03-10', '--to', '2026-03-20', '--out', target, '--json'])
    expect(json.code).toBe(0)
    const summary = JSON.parse(json.stdout) as { rows: number; bytes: number; location: string; format: string }
    expect(summary).toEqual({ rows: 6, bytes: (await stat(target)).size, location: target, format: 'jsonl' })
    expect((await readFile(target, 'utf8')).trimEnd().split('\n')).toHaveLength(6)

    const csv = path.join(dir, 'all.csv')
    const quiet = await portal(['export', 'access-log', '--course', sql.id, '--out', csv])
    expect(quiet).toMatchObject({ code: 0, stdout: '' })
    expect(quiet.stderr).toBe(`Exported 6 rows (${(await stat(csv)).size} bytes) to ${csv}.\n`)
  })

  it('exits 2 in one line for a wrong date, course, time zone, range or format', async () => {
    const cases: [string[], RegExp][] = [
      [['--from', '2026-02-30'], /^portal: --from: Start date must be a date\.\n$/],
      [
        ['--from', '2026-03-02', '--to', '2026-03-01'],
        /^portal: --to: End date must not be before the start date\.\n$/,
      ],
      [
        ['--course', 'No such course anywhere'],
        /^portal: No course with the id or title "No such course anywhere"\.\n$/,
      ],
      [['--tz', 'Mars/Olympus'], /^portal: --tz: Time zone must be an IANA name/],
      [['--range', 'yesterday', '--tz', 'Mars/Olympus'], /^portal: Time zone must be an IANA name/],
      [
        ['--range', 'last-week'],
        /^portal: --range must be one of yesterday, last-7-days, last-month, month-to-date\.\n$/,
      ],
      [
        ['--range', 'yesterday', '--from', '2026-03-01'],
        /^portal: --range cannot be combined with --from or --to\.\n$/,
      ],
      [['--format', 'xlsx'], /^portal: --format must be one of csv, jsonl\.\n$/],
      [['--json'], /^portal: --json prints a summary on standard output/],
      [['--out', 's3://Bad_Bucket'], /^portal: "s3:\/\/Bad_Bucket" is not an S3 object address/],
    ]
    for (const [args, message] of cases) {
      const result = await portal(['export', 'access-log', ...args])
      expect(result.code, args.join(' ')).toBe(2)
      expect(result.stderr, args.join(' ')).toMatch(message)
      expect(result.stderr.trimEnd().split('\n'), args.join(' ')).toHaveLength(1)
      expect(result.stdout).toBe('')
    }
  })

  it('exits 1 in one line when the target cannot be written or the upload fails, leaving nothing', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'portal-export-cli-'))
    const unwritable = await portal(['export', 'access-log', '--out', path.join(dir, 'no-folder', 'x.csv')])
    expect(unwritable.code).toBe(1)
    expect(unwritable.stderr).toBe(`portal: The folder ${path.join(dir, 'no-folder')} does not exist.\n`)
    expect(await readdir(dir)).toEqual([])

    const s3 = await startS3rver()
    try {
      const failed = await portal(['export', 'access-log', '--out', 's3://no-such-bucket/x.csv', '--json'], s3.env)
      expect(failed.code).toBe(1)
      expect(failed.stderr).toBe('portal: Uploading to s3://no-such-bucket/x.csv failed: the bucket does not exist\n')
      expect(failed.stdout).toBe('')
    } finally {
      await s3.close()
    }
  })
})
