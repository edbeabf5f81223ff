import { randomBytes } from 'node:crypto'
import { parse } from 'csv-parse/sync'
import { QueryTypes } from 'sequelize'
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest'
import type { ImportPreview } from '#app/modules/users/import-files.server.ts'
import { importJobs, type ImportJobView } from '#app/modules/users/import-jobs.server.ts'
import * as importPage from '#app/routes/admin+/users_.import.tsx'
import * as jobPage from '#app/routes/admin+/users_.import_.$jobId.tsx'
import * as errorsRoute from '#app/routes/admin+/users_.import_.errors.$key.ts'
import { resetEnvCache } from '#app/utils/env.server.ts'
import { db, sequelize } from '#db/client.ts'
import { makeAdmin, makeCoach, makeCourse, makeLearner } from '#tests/factories.ts'
import { elfBytes } from '#tests/fixtures/files.ts'
import { jobOf as queuedJobOf, startWorkers, stopWorkers } from '#tests/jobs.ts'
import { BASE, call, multipartRequest, testLoadContext } from '#tests/requests.ts'
import { sessionCookieFor, toastOf } from '#tests/sessions.ts'

// The Import users page as a browser without JavaScript uses it: a multipart upload that answers with
// the dry run, a plain form post that starts the import as a job and redirects to its progress, the
// job's page until it has ended, and the error CSV download.

const PATH = '/admin/users/import'
const tag = () => randomBytes(3).toString('hex')

type Reply =
  | { step: 'upload'; errors: Record<string, string>; values: Record<string, string> }
  | { step: 'preview'; preview: ImportPreview }
  | { step: 'confirm'; error: string }
type Job = ImportJobView
type JobPage = { job: Job; errorsHref: string | null }

let adminCookie: string

beforeAll(async () => {
  adminCookie = await sessionCookieFor((await makeAdmin()).userName)
})

afterEach(() => {
  delete process.env.UPLOAD_MAX_IMPORT_MB
  resetEnvCache()
})

// a confirmed import is a job: a worker in this process runs it, as `portal serve` would
beforeAll(() => startWorkers(['user-import']))
// no import may still be writing when the file's database goes
afterAll(() => stopWorkers(10))

/** The page's upload form, posted. */
async function upload(
  content: string | Buffer,
  fields: Record<string, string> = {},
  { cookie = adminCookie, name = 'people.csv' } = {},
) {
  const form = new FormData()
  for (const [field, value] of Object.entries(fields)) form.append(field, value)
  form.append('file', new File([typeof content === 'string' ? content : new Uint8Array(content)], name))
  const request = multipartRequest(`${BASE}${PATH}`, form, { Cookie: cookie })
  try {
    return await importPage.action({ request, params: {}, context: testLoadContext() })
  } catch (thrown) {
    if (thrown instanceof Response) return thrown
    throw thrown
  }
}

const confirm = (fields: Record<string, string>, cookie = adminCookie) =>
  call(importPage.action as never, PATH, {
    method: 'POST',
    headers: { Cookie: cookie },
    body: new URLSearchParams(fields),
  })

const replyOf = async (response: Response) => (await response.json()) as Reply

async function dryRunOf(response: Response) {
  const reply = await replyOf(response)
  if (reply.step !== 'preview') throw new Error(`expected a dry run, got ${JSON.stringify(reply)}`)
  return reply
}

const preview = async (response: Response) => (await dryRunOf(response)).preview

/** The job a confirm redirected to. */
function jobIdOf(confirmed: Response) {
  expect(confirmed.status).toBe(302)
  const location = new URL(confirmed.headers.get('Location')!, BASE)
  const match = /^\/admin\/users\/import\/([0-9a-f-]{36})$/.exec(location.pathname)
  if (!match) throw new Error(`expected a redirect to an import job, got ${location.pathname}`)
  return match[1]
}

const jobPageOf = (id: string, cookie = adminCookie) =>
  call(jobPage.loader as never, `${PATH}/${id}`, { headers: { Cookie: cookie }, params: { jobId: id } })

async function jobOf(id: string, cookie = adminCookie) {
  const response = await jobPageOf(id, cookie)
  expect(response.status).toBe(200)
  return (await response.json()) as JobPage
}

/** The job's page once the import has ended, as the page's own refresh would find it. */
async function ended(id: string) {
  return vi.waitFor(
    async () => {
      const page = await jobOf(id)
      if (page.job.status === 'running' || page.job.status === 'queued') throw new Error('still running')
      return page
    },
    { timeout: 20_000, interval: 50 },
  )
}

async function storedFiles(purpose: 'user_import' | 'import_errors') {
  const { StoredFile } = await db()
  return StoredFile.count({ where: { purpose } })
}

async function account(email: string) {
  const { User } = await db()
  return User.findOne({ where: { email } })
}

/** Three rows: two good learners (one with the course), one with a bad email on line 3. */
function people(courseTitle: string) {
  const t = tag()
  const emails = [`ada${t}@example.com`, `bad${t}`, `cy${t}@example.com`]
  const text = [
    'First Name,Last Name,Email,Username,Password,Courses',
    `Adaline,Lovelace,${emails[0]},ada${t},,${courseTitle}`,
    `Bartholomew,Broken,${emails[1]},bad${t},Secret-pass1!,`,
    `Cyrielle,Hopper,${emails[2]},cy${t},,`,
  ].join('\r\n')
  return { text: `${text}\r\n`, emails, t }
}

describe('the Import users page', () => {
  it('checks an upload with a dry run that writes nothing and keeps the file for the confirm', async () => {
    const course = await makeCourse()
    const { text, emails } = people(course.title)
    const before = await storedFiles('user_import')
    const response = await upload(text, { onExisting: 'skip', delimiter: 'auto' })
    expect(response.status).toBe(200)
    const dryRun = await preview(response)
    // the rows to create, with their line and values; the failing row is not among them
    expect(dryRun.plan).toEqual({
      create: [
        {
          row: 2,
          firstName: 'Adaline',
          lastName: 'Lovelace',
          email: emails[0],
          userName: expect.stringMatching(/^ada/),
          role: '',
          courses: course.title,
          programs: '',
        },
        expect.objectContaining({ row: 4, firstName: 'Cyrielle', email: emails[2] }),
      ],
      update: [],
    })
    expect(dryRun.counts).toEqual({ rows: 3, created: 2, updated: 0, skipped: 0, assigned: 1, failed: 1 })
    expect(dryRun.problems).toEqual([{ row: 3, field: 'email', message: expect.stringMatching(/email/i) }])
    expect(dryRun.moreFailedRows).toBe(0)
    expect(dryRun).toMatchObject({ name: 'people.csv', choices: { onExisting: 'skip', invite: false } })
    // nothing written; the upload is kept, as this admin's import file
    for (const email of emails) expect(await account(email)).toBeNull()
    expect(await storedFiles('user_import')).toBe(before + 1)
    const { StoredFile } = await db()
    expect(await StoredFile.findByPk(dryRun.key)).toMatchObject({ purpose: 'user_import', contentType: 'text/csv' })
  })

  it('imports on confirm as a job, shows its counts and serves the error CSV to the admin who ran it', async () => {
    const course = await makeCourse()
    const { text, emails, t } = people(course.title)
    const dryRun = await preview(await upload(text, { invite: 'on' }))
    expect(dryRun.choices.invite).toBe(true)

    const id = jobIdOf(await confirm({ key: dryRun.key, onExisting: 'skip', delimiter: 'auto', invite: 'on' }))
    // the job's page once the import has ended: the counts and the link to the error CSV
    const { job, errorsHref } = await ended(id)
    expect(job).toMatchObject({
      id,
      fileName: 'people.csv',
      status: 'succeeded',
      counts: { rows: 3, created: 2, updated: 0, skipped: 0, assigned: 1, failed: 1 },
      message: null,
    })
    expect(job.bytesRead).toBe(Buffer.byteLength(text))
    expect(job.bytesTotal).toBe(Buffer.byteLength(text))
    const key = job.errorsKey!
    expect(errorsHref).toBe(`${PATH}/errors/${key}`)
    const ada = await account(emails[0])
    expect(ada).toMatchObject({ firstName: 'Adaline', roleId: 2, passwordHash: null })
    expect(await account(emails[2])).not.toBeNull()
    expect(await account(emails[1])).toBeNull()
    const { CourseAssignment, StoredFile } = await db()
    expect((await CourseAssignment.findAll({ where: { userId: ada!.id } })).map((a) => a.courseId)).toEqual([course.id])
    // invitations were queued for the two accounts without a password
    const queued = await (
      await sequelize()
    ).query<{ email: string }>(
      `SELECT u.email::text AS email FROM mail_queue q JOIN users u ON u.id = q.user_id
       WHERE q.kind = 'invitation' AND u.user_name IN ($1, $2) ORDER BY u.email`,
      { bind: [`ada${t}`, `cy${t}`], type: QueryTypes.SELECT },
    )
    expect(queued.map((q) => q.email)).toEqual([emails[0], emails[2]])
    // the upload is gone once imported; a second confirm of it is refused and imports nothing
    expect(await StoredFile.findByPk(dryRun.key)).toBeNull()
    const again = await confirm({ key: dryRun.key })
    expect(again.status).toBe(404)
    expect(await replyOf(again)).toMatchObject({ step: 'confirm', error: expect.stringMatching(/gone/) })

    const download = await call(errorsRoute.loader as never, `${PATH}/errors/${key}`, {
      headers: { Cookie: adminCookie },
      params: { key },
    })
    expect(download.status).toBe(200)
    expect(download.headers.get('Content-Disposition')).toBe('attachment; filename="people-errors.csv"')
    expect(download.headers.get('Content-Type')).toMatch(/^text\/csv/)
    const rows = parse(await download.text(), { columns: true }) as Record<string, string>[]
    expect(rows).toEqual([
      {
        row: '3',
        field: 'email',
        message: expect.stringMatching(/email/i),
        'First Name': 'Bartholomew',
        'Last Name': 'Broken',
        Email: emails[1],
        Username: `bad${t}`,
        Courses: '',
      },
    ])

    // another admin gets neither the job nor the file
    const other = await sessionCookieFor((await makeAdmin()).userName)
    expect((await jobPageOf(id, other)).status).toBe(404)
    const refused = await call(errorsRoute.loader as never, `${PATH}/errors/${key}`, {
      headers: { Cookie: other },
      params: { key },
    })
    expect(refused.status).toBe(404)
  })

  it('keeps the password of a row with more or fewer values than the header out of the error CSV', async () => {
    const t = tag()
    const [split, shifted] = ['Se,cret-9Xy!', `Shift-${t}-Pass1!`]
    const text = [
      'firstName,lastName,email,userName,password,role',
      `Alice,Ames,alice${t}@example.com,alice${t},${split},learner`,
      `Bobby,bobby${t}@example.com,bobby${t},${shifted},learner`,
    ].join('\n')
    const dryRun = await preview(await upload(text))
    expect(dryRun.problems).toEqual([
      { row: 2, field: '', message: 'This row has 7 values; the header has 6 columns.' },
      { row: 3, field: '', message: 'This row has 5 values; the header has 6 columns.' },
    ])
    const { job } = await ended(jobIdOf(await confirm({ key: dryRun.key })))
    const key = job.errorsKey!
    const download = await call(errorsRoute.loader as never, `${PATH}/errors/${key}`, {
      headers: { Cookie: adminCookie },
      params: { key },
    })
    const report = await download.text()
    expect(
      (parse(report, { columns: true }) as Record<string, string>[]).map((r) => [r.row, r.role, r.userName]),
    ).toEqual([
      ['2', '', ''],
      ['3', '', ''],
    ])
    for (const secret of ['cret-9Xy!', shifted]) expect(report).not.toContain(secret)
  })

  it('updates existing accounts when asked, and skips them by default', async () => {
    const learner = await makeLearner()
    const text = `firstName,lastName,email,userName\nRenamed,Person,${learner.email},${learner.userName}\n`
    const skipped = await preview(await upload(text))
    expect(skipped.counts).toMatchObject({ created: 0, updated: 0, skipped: 1 })
    const updating = await preview(await upload(text, { onExisting: 'update' }))
    expect(updating.counts).toMatchObject({ updated: 1, skipped: 0 })
    expect(updating.plan).toEqual({
      create: [],
      update: [
        {
          row: 2,
          firstName: 'Renamed',
          lastName: 'Person',
          email: learner.email,
          userName: learner.userName,
          role: '',
          courses: '',
          programs: '',
        },
      ],
    })
    const { job } = await ended(jobIdOf(await confirm({ key: updating.key, onExisting: 'update' })))
    expect(job.counts).toMatchObject({ updated: 1, created: 0 })
    expect(await account(learner.email)).toMatchObject({ firstName: 'Renamed' })
  })

  it('is for admins: a coach is sent back to the Users List and a learner out of the admin area', async () => {
    const coach = await sessionCookieFor((await makeCoach()).userName)
    const learner = await sessionCookieFor((await makeLearner()).userName)
    const before = await storedFiles('user_import')
    for (const [cookie, where] of [
      [coach, '/admin/users'],
      [learner, '/courses'],
    ]) {
      const page = await call(importPage.loader as never, PATH, { headers: { Cookie: cookie } })
      expect(page.status).toBe(302)
      expect(page.headers.get('Location')).toBe(where)
      const posted = await upload('firstName,lastName,email,userName\nCo,Ach,co@example.com,coach1\n', {}, { cookie })
      expect(posted.status).toBe(302)
      expect(posted.headers.get('Location')).toBe(where)
    }
    const refused = await call(importPage.loader as never, PATH, { headers: { Cookie: coach } })
    expect(await toastOf(refused)).toMatchObject({ message: 'Only admins can manage people.' })
    expect(await storedFiles('user_import')).toBe(before)
    expect(await account('co@example.com')).toBeNull()
  })

  it('refuses a file key that another admin uploaded, and leaves their file alone', async () => {
    const otherCookie = await sessionCookieFor((await makeAdmin()).userName)
    const t = tag()
    const theirs = await preview(
      await upload(
        `firstName,lastName,email,userName\nForeign,Person,fo${t}@example.com,fo${t}\n`,
        {},
        {
          cookie: otherCookie,
        },
      ),
    )
    const refused = await confirm({ key: theirs.key })
    expect(refused.status).toBe(404)
    expect(await replyOf(refused)).toMatchObject({ step: 'confirm', error: expect.stringMatching(/not yours/) })
    expect(await account(`fo${t}@example.com`)).toBeNull()
    const { StoredFile } = await db()
    expect(await StoredFile.findByPk(theirs.key)).not.toBeNull()
    // nor may a confirm name a file that is not an import's upload at all
    const odd = await confirm({ key: '../../etc/passwd' })
    expect(odd.status).toBe(400)
  })

  it('refuses bad files beside the file field, storing nothing', async () => {
    const before = await storedFiles('user_import')
    const refusal = async (response: Response, status: number) => {
      expect(response.status).toBe(status)
      const reply = await replyOf(response)
      if (reply.step !== 'upload') throw new Error(`expected a refusal, got ${reply.step}`)
      return reply.errors.file
    }

    expect(await refusal(await upload(elfBytes()), 415)).toMatch(/^The file is not CSV text: it holds binary data/)
    expect(await refusal(await upload('a,b\n', {}, { name: 'people.xlsx' }), 415)).toBe(
      'Only CSV files (.csv) are accepted.',
    )
    expect(await refusal(await upload(''), 400)).toBe('The file is empty.')
    expect(await refusal(await upload('Name,Mail\nAda,ada@example.com\n'), 400)).toMatch(
      /^The header \(line 1\) cannot be used: "Name" is not a column/,
    )
    const t = tag()
    const broken = [
      'firstName,lastName,email,userName',
      `Fine,Person,fine${t}@example.com,fine${t}`,
      `"Never,Closed,nc${t}@example.com,nc${t}`,
      `Later,Person,later${t}@example.com,later${t}`,
    ].join('\n')
    expect(await refusal(await upload(broken), 400)).toMatch(/line 3 .*never closed.*Nothing was imported/)
    expect(await account(`fine${t}@example.com`)).toBeNull()
    // a choice the page does not offer is refused beside it, and the file goes too
    const odd = await upload('firstName,lastName,email,userName\n', { onExisting: 'fail' })
    expect(odd.status).toBe(400)
    expect(await replyOf(odd)).toMatchObject({ step: 'upload', errors: { onExisting: 'Choose skip or update.' } })

    process.env.UPLOAD_MAX_IMPORT_MB = '0.01' // 10,485 bytes
    resetEnvCache()
    const rows = Array.from({ length: 400 }, (_, i) => `Person,Number${i},p${i}${t}@example.com,p${i}${t}`)
    const big = ['firstName,lastName,email,userName', ...rows].join('\n')
    expect(big.length).toBeGreaterThan(10_485)
    expect(await refusal(await upload(big), 413)).toBe('The file is larger than 0.01 MB.')

    expect(await storedFiles('user_import')).toBe(before)
  })

  it('asks for a file when the form comes without one', async () => {
    const form = new FormData()
    form.append('onExisting', 'update')
    form.append('file', new File([], ''))
    const response = await call(importPage.action as never, PATH, {
      method: 'POST',
      headers: { Cookie: adminCookie },
      body: form,
    })
    expect(response.status).toBe(400)
    expect(await replyOf(response)).toEqual({
      step: 'upload',
      errors: { file: 'Choose a CSV file to import.' },
      values: { onExisting: 'update', invite: '', delimiter: 'auto' },
    })
  })
})

/** `count` good learners, one a line from line 2; with `passwords`, one on every tenth (never to be shown). */
function manyPeople(count: number, { passwords = false } = {}) {
  const t = tag()
  const rows = Array.from({ length: count }, (_, i) =>
    [
      'Person',
      'Many',
      `p${i}.${t}@example.com`,
      `p${i}.${t}`,
      passwords && i % 10 === 0 ? `Hidden-pass${i}!` : '',
    ].join(','),
  )
  const text = `${['firstName,lastName,email,userName,password', ...rows].join('\n')}\n`
  return { text, email: (i: number) => `p${i}.${t}@example.com`, userName: (i: number) => `p${i}.${t}` }
}

async function jobsCount() {
  const [row] = await (
    await sequelize()
  ).query<{ n: number }>('SELECT count(*)::int AS n FROM import_jobs', { type: QueryTypes.SELECT })
  return row.n
}

describe('the import job', () => {
  it('shows the first 50 rows to create, never a password, and how many more there are', async () => {
    const { text } = manyPeople(60, { passwords: true })
    const response = await upload(text)
    const reply = await dryRunOf(response)
    expect(reply.preview.counts).toMatchObject({ rows: 60, created: 60 })
    expect(reply.preview.plan.create).toHaveLength(50)
    expect(reply.preview.plan.create.map((r) => r.row)).toEqual(Array.from({ length: 50 }, (_, i) => i + 2))
    expect(reply.preview.plan.create[0]).not.toHaveProperty('password')
    expect(JSON.stringify(reply)).not.toMatch(/Hidden-pass/)
  })

  it('lists the rows to create and to update however far down the file, and no row that changes nothing', async () => {
    const t = tag()
    // 540 accounts the file gives as they are, then creates, real updates and more unchanged rows, in turn
    const unchanged = Array.from({ length: 600 }, (_, i) => `same${i}.${t}`)
    const changing = Array.from({ length: 60 }, (_, i) => `upd${i}.${t}`)
    await (
      await sequelize()
    ).query(
      `INSERT INTO users (first_name, last_name, user_name, email, role_id)
       SELECT 'Same', 'Person', u, u || '@example.com', 2 FROM unnest($1::text[]) AS u`,
      { bind: [[...unchanged, ...changing]] },
    )
    const same = (userName: string) => `Same,Person,${userName}@example.com,${userName}`
    const rows = unchanged.slice(0, 540).map(same)
    for (let i = 0; i < 60; i++)
      rows.push(
        `Newt,Person,new${i}.${t}@example.com,new${i}.${t}`,
        `Changed,Person,${changing[i]}@example.com,${changing[i]}`,
        same(unchanged[540 + i]),
      )
    const text = `${['firstName,lastName,email,userName', ...rows].join('\n')}\n`
    const dryRun = await preview(await upload(text, { onExisting: 'update' }))
    expect(dryRun.counts).toEqual({ rows: 720, created: 60, updated: 60, skipped: 600, assigned: 0, failed: 0 })
    // line 542 is the first new one; every third line from there creates, the one after it updates
    const lines = (first: number) => Array.from({ length: 50 }, (_, i) => first + 3 * i)
    expect(dryRun.plan.create.map((r) => r.row)).toEqual(lines(542))
    expect(dryRun.plan.update.map((r) => r.row)).toEqual(lines(543))
    expect(dryRun.plan.create[0]).toEqual({
      row: 542,
      firstName: 'Newt',
      lastName: 'Person',
      email: `new0.${t}@example.com`,
      userName: `new0.${t}`,
      role: '',
      courses: '',
      programs: '',
    })
    expect(dryRun.plan.update[49]).toMatchObject({ row: 690, firstName: 'Changed', userName: changing[49] })
    expect(dryRun.plan.update.every((r) => r.firstName === 'Changed')).toBe(true)
  })

  it('records its progress while it runs, and its counts at the end; a second confirm watches the same job', async () => {
    const { text, email, userName } = manyPeople(1500)
    const dryRun = await preview(await upload(text))
    expect(dryRun.counts).toMatchObject({ rows: 1500, created: 1500, failed: 0 })

    // An account with row 1,200's email, written but not committed: the import's second batch (rows
    // 1,001–1,500) waits on it, so the job is seen between its batches.
    const sql = await sequelize()
    const holding = await sql.transaction()
    try {
      await sql.query(
        `INSERT INTO users (first_name, last_name, user_name, email, role_id) VALUES ('Held', 'Back', $1, $2, 2)`,
        { bind: [`held${userName(1198)}`, email(1198)], transaction: holding },
      )
      const id = jobIdOf(await confirm({ key: dryRun.key }))
      const midway = await vi.waitFor(
        async () => {
          const page = await jobOf(id)
          if (page.job.counts.rows < 1000) throw new Error('first batch not recorded yet')
          return page
        },
        { timeout: 20_000, interval: 50 },
      )
      expect(midway.job).toMatchObject({
        status: 'running',
        counts: { rows: 1000, created: 1000, failed: 0 },
        errorsKey: null,
      })
      expect(midway.job.bytesRead).toBeGreaterThan(0)
      expect(midway.job.bytesRead).toBeLessThan(midway.job.bytesTotal)
      expect(midway.job.bytesTotal).toBe(Buffer.byteLength(text))
      expect(await account(email(999))).not.toBeNull()
      expect(await account(email(1000))).toBeNull()

      // confirming again while it runs starts nothing: the same job is shown
      const jobs = await jobsCount()
      expect(jobIdOf(await confirm({ key: dryRun.key }))).toBe(id)
      expect(await jobsCount()).toBe(jobs)

      await holding.rollback()
      const { job, errorsHref } = await ended(id)
      expect(job).toMatchObject({
        status: 'succeeded',
        counts: { rows: 1500, created: 1500, updated: 0, skipped: 0, failed: 0 },
        bytesRead: Buffer.byteLength(text),
        errorsKey: null,
      })
      expect(errorsHref).toBeNull()
      expect(await account(email(1499))).not.toBeNull()
    } finally {
      await holding.rollback().catch(() => undefined)
    }
  })

  it('is the admin’s who started it: coaches and learners are turned away, others find no such job', async () => {
    const { text } = manyPeople(2)
    const dryRun = await preview(await upload(text))
    const coach = await sessionCookieFor((await makeCoach()).userName)
    const learner = await sessionCookieFor((await makeLearner()).userName)
    const jobs = await jobsCount()
    for (const [cookie, where] of [
      [coach, '/admin/users'],
      [learner, '/courses'],
    ]) {
      const started = await confirm({ key: dryRun.key }, cookie)
      expect(started.status).toBe(302)
      expect(started.headers.get('Location')).toBe(where)
    }
    expect(await jobsCount()).toBe(jobs)

    const id = jobIdOf(await confirm({ key: dryRun.key }))
    const { job } = await ended(id)
    for (const [cookie, where] of [
      [coach, '/admin/users'],
      [learner, '/courses'],
    ]) {
      const page = await jobPageOf(id, cookie)
      expect(page.status).toBe(302)
      expect(page.headers.get('Location')).toBe(where)
    }
    expect(await toastOf(await jobPageOf(id, coach))).toMatchObject({ message: 'Only admins can manage people.' })
    const other = await sessionCookieFor((await makeAdmin()).userName)
    expect((await jobPageOf(id, other)).status).toBe(404)
    // an id that names no job, names nothing, or names something else (the upload, a course) is not found
    const course = await makeCourse()
    for (const unknown of ['00000000-0000-4000-8000-000000000000', 'not-a-job', dryRun.key, course.id]) {
      const page = await jobPageOf(unknown)
      expect(page.status).toBe(404)
      expect(await page.json()).toEqual({ message: expect.stringMatching(/no such import/) })
    }
    expect(job.status).toBe('succeeded')
  })

  it('is queued with its job until a worker takes it, and reads as failed once its job is given up', async () => {
    await stopWorkers(10)
    try {
      const { text } = manyPeople(2)
      const dryRun = await preview(await upload(text))
      const id = jobIdOf(await confirm({ key: dryRun.key }))
      expect((await jobOf(id)).job).toMatchObject({ status: 'queued', counts: { rows: 0 }, finishedAt: null })
      expect(await queuedJobOf(id)).toMatchObject({ name: 'user-import', state: 'created' })

      // its worker died and the job was tried as often as it may be
      await importJobs.gaveUp?.(id, 'The worker running it stopped answering.')
      const { job } = await jobOf(id)
      expect(job).toMatchObject({
        status: 'failed',
        message: expect.stringMatching(/server running it went away.*rows counted here were imported/),
      })
      expect(job.finishedAt).not.toBeNull()
    } finally {
      await startWorkers(['user-import'])
    }
  })
})
