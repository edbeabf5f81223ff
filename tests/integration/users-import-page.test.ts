import { randomBytes } from 'node:crypto'
import { parse } from 'csv-parse/sync'
import { QueryTypes } from 'sequelize'
import { afterEach, beforeAll, describe, expect, it } from 'vitest'
import * as errorsRoute from '#app/routes/admin+/users_.import_.errors.$key.ts'
import * as importPage from '#app/routes/admin+/users_.import.tsx'
import { resetEnvCache } from '#app/utils/env.server.ts'
import { db, sequelize } from '#db/client.ts'
import { makeAdmin, makeCoach, makeCourse, makeLearner } from '#tests/factories.ts'
import { elfBytes } from '#tests/fixtures/files.ts'
import { BASE, call } from '#tests/requests.ts'
import { sessionCookieFor, toastOf } from '#tests/sessions.ts'

// The Import users page as a browser without JavaScript uses it: a multipart upload that answers with
// the dry run, a plain form post that imports and redirects to the counts, and the error CSV download.

const PATH = '/admin/users/import'
const tag = () => randomBytes(3).toString('hex')

type Preview = {
  key: string
  name: string
  choices: { key: string; onExisting: string; invite: boolean; delimiter: string }
  counts: { rows: number; created: number; updated: number; skipped: number; assigned: number; failed: number }
  problems: { row: number; field: string; message: string }[]
  moreFailedRows: number
}
type Reply =
  | { step: 'upload'; errors: Record<string, string>; values: Record<string, string> }
  | { step: 'preview'; preview: Preview }
  | { step: 'confirm'; error: string }

let adminCookie: string

beforeAll(async () => {
  adminCookie = await sessionCookieFor((await makeAdmin()).userName)
})

afterEach(() => {
  delete process.env.UPLOAD_MAX_IMPORT_MB
  resetEnvCache()
})

/**
 * The page's upload form, posted. The body is read through a stream of our own, so that a server
 * refusing it part-way just stops pulling (cancelling undici's own FormData stream errors on Node 24).
 */
async function upload(
  content: string | Buffer,
  fields: Record<string, string> = {},
  { cookie = adminCookie, name = 'people.csv' } = {},
) {
  const form = new FormData()
  for (const [field, value] of Object.entries(fields)) form.append(field, value)
  form.append('file', new File([typeof content === 'string' ? content : new Uint8Array(content)], name))
  const encoded = new Response(form)
  const reader = encoded.body!.getReader()
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      const { done, value } = await reader.read()
      if (done) controller.close()
      else controller.enqueue(value)
    },
  })
  const request = new Request(`${BASE}${PATH}`, {
    method: 'POST',
    body,
    headers: { 'Content-Type': encoded.headers.get('Content-Type') ?? '', Cookie: cookie },
    duplex: 'half',
  } as RequestInit)
  try {
    return await importPage.action({ request, params: {}, context: {} })
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

async function preview(response: Response) {
  const reply = await replyOf(response)
  if (reply.step !== 'preview') throw new Error(`expected a dry run, got ${JSON.stringify(reply)}`)
  return reply.preview
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

  it('imports on confirm, redirects to the counts and serves the error CSV to the admin who ran it', async () => {
    const course = await makeCourse()
    const { text, emails, t } = people(course.title)
    const dryRun = await preview(await upload(text, { invite: 'on' }))
    expect(dryRun.choices.invite).toBe(true)

    const done = await confirm({ key: dryRun.key, onExisting: 'skip', delimiter: 'auto', invite: 'on' })
    expect(done.status).toBe(302)
    const location = new URL(done.headers.get('Location')!, BASE)
    expect(location.pathname).toBe(PATH)
    expect(Object.fromEntries(location.searchParams)).toMatchObject({
      done: '1',
      rows: '3',
      created: '2',
      failed: '1',
      assigned: '1',
    })
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

    // the page after the redirect: the counts and the link to the error CSV
    const page = await call(importPage.loader as never, `${location.pathname}${location.search}`, {
      headers: { Cookie: adminCookie },
    })
    const key = location.searchParams.get('errors')!
    expect(await page.json()).toMatchObject({
      done: { counts: { created: 2, failed: 1 }, errorsHref: `${PATH}/errors/${key}` },
    })
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

    // another admin gets neither the link nor the file
    const other = await sessionCookieFor((await makeAdmin()).userName)
    const theirs = await call(importPage.loader as never, `${location.pathname}${location.search}`, {
      headers: { Cookie: other },
    })
    expect(((await theirs.json()) as { done: { errorsHref: string | null } }).done.errorsHref).toBeNull()
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
    const done = await confirm({ key: dryRun.key })
    const key = new URL(done.headers.get('Location')!, BASE).searchParams.get('errors')!
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
    const done = await confirm({ key: updating.key, onExisting: 'update' })
    expect(new URL(done.headers.get('Location')!, BASE).searchParams.get('updated')).toBe('1')
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
