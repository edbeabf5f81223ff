import { within } from '@testing-library/dom'
import { parse } from 'csv-parse/sync'
import { beforeAll, describe, expect, it } from 'vitest'
import { ROLE } from '#app/modules/auth/roles.ts'
import { issueDueCertificates } from '#app/modules/certificates/issue.server.ts'
import {
  certificateSubjects,
  reissueCertificate,
  revokeCertificate,
  staffCertificate,
  staffCertificates,
  staffCertificateStream,
  type StaffCertificateView,
} from '#app/modules/certificates/service.server.ts'
import { ServiceError } from '#app/modules/errors.ts'
import * as page from '#app/routes/admin+/certificates.tsx'
import * as exportRoute from '#app/routes/admin+/certificates_.export.ts'
import { db } from '#db/client.ts'
import { assignCourse, assignProgram, makeCourse, makeProgram, makeUser, recordWatched } from '#tests/factories.ts'
import { renderRoute, type RouteModule } from '#tests/render.tsx'
import { call } from '#tests/requests.ts'
import { signedInPeople, toastOf, type SignedInPerson } from '#tests/sessions.ts'

// The Certificates page of the admin side: the list's search and filters in the service, the page as a browser
// without JavaScript uses it (Revoke with its reason, Re-issue, what a coach and a learner get), and its CSV.

const ISSUER = 'Northwind Data Academy'
const PAGE = '/admin/certificates'
const EVERYTHING = { offset: 0, limit: 100 }

let session: Record<'admin' | 'coach' | 'learner', SignedInPerson>
let course: { id: string; title: string }
let quiet: { id: string; title: string }
let program: { id: string }
let annika: { id: string; email: string }
let bruno: { id: string; email: string }
let mallory: { id: string; email: string }

/** A learner of these names who completes `course`. */
async function completer(firstName: string, lastName: string, email: string) {
  const learner = await makeUser({ firstName, lastName, email })
  await assignCourse(learner.id, course.id)
  await recordWatched(learner.id, course.id, { id: videoId, duration: 600 }, 600)
  return learner
}
let videoId: string

beforeAll(async () => {
  session = await signedInPeople('admin', 'coach', 'learner')
  const { Course, Program } = await db()
  const made = await makeCourse({ title: 'Dimensional Modelling', videos: [{ duration: 600 }] })
  course = made
  videoId = made.videos[0].id
  await Course.update({ certificates: true, certificateIssuer: ISSUER }, { where: { id: course.id } })
  quiet = await makeCourse({ title: 'Query Tuning', videos: [{ duration: 60 }] })
  program = await makeProgram([course.id])
  await Program.update({ certificates: true, certificateIssuer: ISSUER }, { where: { id: program.id } })
  annika = await completer('Annika', 'Berg', 'Annika.Berg@Example.com')
  bruno = await completer('Bruno', 'Costa', 'bruno.costa@example.com')
  // a name a spreadsheet would run as a formula
  mallory = await completer('=HYPERLINK("http://evil.test")', 'Mallory', 'mallory@example.com')
  await assignProgram(annika.id, program.id)
  await issueDueCertificates()
})

const actorOf = (person: SignedInPerson) => ({ id: person.id, roleId: person.roleId })
const admin = () => actorOf(session.admin)

async function listed(input: Record<string, unknown> = {}) {
  return (await staffCertificates(admin(), input, EVERYTHING)).rows
}

async function certificateOf(userId: string, kind: 'course' | 'program' = 'course'): Promise<StaffCertificateView> {
  const found = (await listed({ userId })).find((c) => c.kind === kind && c.state === 'valid')
  if (!found) throw new Error(`no valid ${kind} certificate for ${userId}`)
  return found
}

async function refusal(promise: Promise<unknown>) {
  const error = await promise.then(
    () => undefined,
    (thrown: unknown) => thrown,
  )
  expect(error).toBeInstanceOf(ServiceError)
  return error as ServiceError
}

describe('the list of every certificate', () => {
  it('lists them newest first with the learner’s email, filtered by course, program and state', async () => {
    const all = await staffCertificates(admin(), {}, EVERYTHING)
    expect(all.total).toBe(4)
    expect(all.rows.map((c) => c.issuedAt)).toEqual([...all.rows.map((c) => c.issuedAt)].sort().reverse())
    expect(all.rows.find((c) => c.userId === annika.id && c.kind === 'course')).toMatchObject({
      learnerName: 'Annika Berg',
      learnerEmail: 'Annika.Berg@Example.com',
      currentName: 'Annika Berg',
      title: 'Dimensional Modelling',
      subjectId: course.id,
      issuerName: ISSUER,
      minutes: 10,
      state: 'valid',
    })

    const ofCourse = await listed({ courseId: course.id })
    expect(ofCourse.map((c) => c.kind)).toEqual(['course', 'course', 'course'])
    const ofProgram = await listed({ programId: program.id })
    expect(ofProgram.map((c) => [c.kind, c.userId])).toEqual([['program', annika.id]])
    expect(await listed({ courseId: quiet.id })).toEqual([])

    const page = await staffCertificates(admin(), {}, { offset: 2, limit: 2 })
    expect(page).toMatchObject({ total: 4 })
    expect(page.rows.map((c) => c.id)).toEqual(all.rows.slice(2, 4).map((c) => c.id))
  })

  it('finds a certificate by its code typed in any grouping and case, or by part of a name or an email', async () => {
    const wanted = await certificateOf(bruno.id)
    const plain = wanted.code.replaceAll('-', '')
    const typings = [
      wanted.code,
      plain.toLowerCase(),
      plain.replace(/(.{2})/g, '$1 ').trim(),
      ` ${wanted.code.toLowerCase().replaceAll('-', ' - ')} `,
      plain.replaceAll('0', 'O').replaceAll('1', 'l'),
    ]
    for (const q of typings)
      expect(
        (await listed({ q })).map((c) => c.id),
        q,
      ).toEqual([wanted.id])
    // a code one character short names no certificate, and matches nothing else
    expect(await listed({ q: plain.slice(1) })).toEqual([])

    expect((await listed({ q: 'ANNIKA.berg@' })).map((c) => c.userId)).toEqual([annika.id, annika.id])
    expect((await listed({ q: 'costa' })).map((c) => c.userId)).toEqual([bruno.id])
    // LIKE's wildcards are searched for as typed
    expect(await listed({ q: '%' })).toEqual([])
  })

  it('is for the admin side: a learner is refused, not shown their own', async () => {
    const learner = await makeUser({ firstName: 'Lone', lastName: 'Learner' })
    const asLearner = { id: learner.id, roleId: learner.roleId }
    expect((await refusal(staffCertificates(asLearner, { userId: learner.id }, EVERYTHING))).status).toBe(403)
    expect((await refusal(staffCertificates(actorOf(session.learner), {}, EVERYTHING))).status).toBe(403)
    const code = (await certificateOf(annika.id)).code
    const annikaActor = { id: annika.id, roleId: ROLE.learner }
    expect((await refusal(staffCertificate(annikaActor, code))).status).toBe(403)
    expect(() => staffCertificateStream(annikaActor, {})).toThrow(ServiceError)
    expect((await refusal(certificateSubjects(annikaActor))).status).toBe(403)
    // a coach reads them
    expect((await staffCertificates(actorOf(session.coach), {}, EVERYTHING)).total).toBeGreaterThanOrEqual(4)
    expect(await staffCertificate(actorOf(session.coach), code)).toMatchObject({ userId: annika.id })
  })

  it('refuses a filter it cannot read', async () => {
    await expect(staffCertificates(admin(), { courseId: 'nope' }, EVERYTHING)).rejects.toThrow(
      'A course id is not valid.',
    )
    await expect(staffCertificates(admin(), { state: 'lost' }, EVERYTHING)).rejects.toThrow(
      'State must be valid or revoked.',
    )
  })

  it('says which courses and programs give certificates, and how many each gave', async () => {
    const { courses, programs } = await certificateSubjects(actorOf(session.coach))
    expect(courses).toEqual(
      expect.arrayContaining([
        { id: course.id, title: 'Dimensional Modelling', certificates: true, issued: 3 },
        { id: quiet.id, title: 'Query Tuning', certificates: false, issued: 0 },
      ]),
    )
    expect(programs).toEqual([expect.objectContaining({ id: program.id, certificates: true, issued: 1 })])
  })

  it('lets a coach revoke and re-issue nothing', async () => {
    const code = (await certificateOf(bruno.id)).code
    const coach = actorOf(session.coach)
    expect((await refusal(revokeCertificate(coach, code, { reason: 'No.' }))).status).toBe(403)
    expect((await refusal(reissueCertificate(coach, code))).status).toBe(403)
    expect((await certificateOf(bruno.id)).code).toBe(code)
  })
})

const render = (path: string, options: { cookie?: string; form?: [string, string][] } = {}) =>
  renderRoute(page as RouteModule, path, { cookie: session.admin.cookie, ...options })

const post = (path: string, fields: Record<string, string>, cookie = session.admin.cookie, headers = {}) =>
  call(page.action, path, {
    method: 'POST',
    body: new URLSearchParams(fields),
    headers: { Cookie: cookie, ...headers },
  })

describe('the Certificates page', () => {
  it('shows each certificate with its code, the learner linked to their page, the title, and Revoke for an admin', async () => {
    const shown = await render(`${PAGE}?course=${course.id}&size=21`)
    expect(shown.getByRole('heading', { level: 1, name: 'Certificates' })).toBeInTheDocument()
    const table = shown.getByRole('table', { name: 'Certificates' })
    const wanted = await certificateOf(annika.id)
    const row = within(table).getByText(wanted.code).closest('tr')!
    expect(within(row).getByRole('link', { name: 'Annika Berg' })).toHaveAttribute('href', `/admin/user/${annika.id}`)
    expect(within(row).getByText('Annika.Berg@Example.com')).toBeInTheDocument()
    expect(within(row).getByRole('link', { name: 'Dimensional Modelling' })).toHaveAttribute(
      'href',
      `/admin/course/${course.id}`,
    )
    expect(within(row).getByText('0.2 hours')).toBeInTheDocument()
    expect(within(row).getByText('Valid')).toBeInTheDocument()
    expect(within(row).getByRole('link', { name: `Revoke ${wanted.code}` })).toHaveAttribute(
      'href',
      expect.stringContaining(`revoke=${wanted.code}`),
    )
    // the program's certificate is not of this course
    expect(within(table).getAllByRole('row')).toHaveLength(1 + 3)
    // the export carries the same filter
    expect(shown.getByRole('link', { name: /Export CSV/ })).toHaveAttribute(
      'href',
      `${PAGE}/export?course=${course.id}`,
    )
    expect(shown.getByRole('navigation', { name: 'Certificates pages' })).toBeInTheDocument()
  })

  it('shows a coach the same list without Revoke or Re-issue', async () => {
    const shown = await render(PAGE, { cookie: session.coach.cookie })
    expect(shown.getByRole('table', { name: 'Certificates' })).toBeInTheDocument()
    expect(shown.getAllByText('Valid').length).toBeGreaterThan(0)
    expect(shown.queryByRole('link', { name: /^Revoke / })).toBeNull()
    expect(shown.queryByRole('link', { name: /^Re-issue / })).toBeNull()
    expect(shown.getByText(/Only admins can revoke or re-issue a certificate\./)).toBeInTheDocument()
    // nor does a dialog in the URL open for them
    const code = (await certificateOf(bruno.id)).code
    const asked = await render(`${PAGE}?revoke=${code}`, { cookie: session.coach.cookie })
    expect(asked.queryByRole('button', { name: 'Revoke certificate' })).toBeNull()
  })

  it('sends a learner away', async () => {
    const response = await call(page.loader, PAGE, { headers: { Cookie: session.learner.cookie } })
    expect(response.status).toBe(302)
    expect(response.headers.get('Location')).toBe('/courses')
  })

  it('says why a course’s list is empty, and what to do', async () => {
    const shown = await render(`${PAGE}?course=${quiet.id}`)
    expect(shown.getByText('Certificates are off for Query Tuning')).toBeInTheDocument()
    expect(shown.getByRole('link', { name: 'its page' })).toHaveAttribute('href', `/admin/course/${quiet.id}`)
    const none = await render(`${PAGE}?q=nobody-at-all`)
    expect(none.getByText('No certificate matches')).toBeInTheDocument()
    const wrong = await render(`${PAGE}?program=not-an-id`)
    expect(wrong.getByText('A program id is not valid.')).toBeInTheDocument()
  })

  it('asks for a reason before revoking, without JavaScript, and keeps the certificate valid until given one', async () => {
    const wanted = await certificateOf(bruno.id)
    const path = `${PAGE}?revoke=${wanted.code}`
    const dialog = await render(path)
    expect(dialog.getByRole('heading', { name: 'Revoke certificate' })).toBeInTheDocument()
    const reason = dialog.getByRole('textbox', { name: 'Reason' })
    expect(reason.closest('form')).toHaveAttribute('method', 'post')

    const refused = await render(path, {
      form: [
        ['intent', 'revoke'],
        ['code', wanted.code],
        ['reason', '  '],
      ],
    })
    expect(refused.getByRole('textbox', { name: 'Reason' })).toHaveAccessibleDescription('Enter a reason.')
    expect((await certificateOf(bruno.id)).id).toBe(wanted.id)

    // a code that names none opens no dialog: the list, with a toast
    const unknown = await call(page.loader, `${PAGE}?q=costa&revoke=0000-0000`, {
      headers: { Cookie: session.admin.cookie },
    })
    expect(unknown.headers.get('Location')).toBe(`${PAGE}?q=costa`)
    expect(await toastOf(unknown)).toMatchObject({ type: 'error', message: 'No certificate has this code.' })
  })

  it('revokes with the reason, back to the list as it was with a toast, and shows it revoked with the reason', async () => {
    const wanted = await certificateOf(bruno.id)
    const response = await post(`${PAGE}?q=costa&revoke=${wanted.code}`, {
      intent: 'revoke',
      code: wanted.code.toLowerCase(),
      reason: 'Completed on a shared account.',
    })
    expect(response.status).toBe(302)
    expect(response.headers.get('Location')).toBe(`${PAGE}?q=costa`)
    expect(await toastOf(response)).toMatchObject({
      type: 'success',
      message: `Certificate ${wanted.code} of Bruno Costa revoked.`,
    })
    const shown = await render(`${PAGE}?q=${wanted.code}`)
    const row = within(shown.getByRole('table', { name: 'Certificates' }))
      .getByText(wanted.code)
      .closest('tr')!
    expect(within(row).getByText(/^Revoked on/)).toBeInTheDocument()
    expect(within(row).getByText('Completed on a shared account.')).toBeInTheDocument()
    expect(within(row).queryByRole('link', { name: /^Revoke / })).toBeNull()
    expect((await listed({ state: 'revoked' })).map((c) => c.id)).toContain(wanted.id)
    expect((await listed({ state: 'valid' })).map((c) => c.id)).not.toContain(wanted.id)

    // twice: a toast says so
    const again = await post(PAGE, { intent: 'revoke', code: wanted.code, reason: 'Again.' })
    expect(await toastOf(again)).toMatchObject({ type: 'error', message: 'This certificate is revoked already.' })
  })

  it('refuses a coach’s revoke, with or without a reason, and a post from another site', async () => {
    const wanted = await certificateOf(mallory.id)
    for (const reason of ['Because.', '']) {
      const response = await post(PAGE, { intent: 'revoke', code: wanted.code, reason }, session.coach.cookie)
      expect(response.status).toBe(302)
      expect(await toastOf(response)).toMatchObject({
        type: 'error',
        message: 'Only admins can revoke or issue certificates.',
      })
    }
    const learner = await post(PAGE, { intent: 'revoke', code: wanted.code, reason: 'Me.' }, session.learner.cookie)
    expect(learner.headers.get('Location')).toBe('/courses')
    const forged = await post(PAGE, { intent: 'revoke', code: wanted.code, reason: 'Forged.' }, undefined, {
      'Sec-Fetch-Site': 'cross-site',
    })
    expect(await toastOf(forged)).toMatchObject({ type: 'error', message: 'Requests from other sites are refused.' })
    expect((await certificateOf(mallory.id)).id).toBe(wanted.id)
  })

  it('re-issues under the learner’s name as it is now, the old one revoked as replaced', async () => {
    const { User } = await db()
    await User.update({ lastName: 'Berg-Lund' }, { where: { id: annika.id } })
    const old = await certificateOf(annika.id)
    const asked = await render(`${PAGE}?reissue=${old.code}`)
    expect(asked.getByRole('heading', { name: 'Re-issue certificate' })).toBeInTheDocument()
    expect(asked.getByText(/\(Annika Berg-Lund, not Annika Berg\)/)).toBeInTheDocument()
    expect(asked.getAllByText('Now named Annika Berg-Lund').length).toBeGreaterThan(0)

    const response = await post(`${PAGE}?reissue=${old.code}`, { intent: 'reissue', code: old.code })
    expect(response.headers.get('Location')).toBe(PAGE)
    const renewed = await certificateOf(annika.id)
    expect(renewed).toMatchObject({ learnerName: 'Annika Berg-Lund', title: old.title, minutes: old.minutes })
    expect(renewed.code).not.toBe(old.code)
    expect(await toastOf(response)).toMatchObject({
      type: 'success',
      message: `Re-issued as ${renewed.code}, stating Annika Berg-Lund; the old certificate is revoked.`,
    })
    expect((await listed({ q: old.code }))[0]).toMatchObject({
      state: 'revoked',
      revokedReason: `Re-issued as ${renewed.code}.`,
    })
  })
})

describe('the export', () => {
  const download = (query: string, cookie = session.admin.cookie) =>
    call(exportRoute.loader, `${PAGE}/export${query}`, { headers: { Cookie: cookie } })

  it('is the CSV of the filter, every row of it, a formula in a name neutralised', async () => {
    const response = await download(`?course=${course.id}`)
    expect(response.status).toBe(200)
    expect(response.headers.get('Content-Type')).toBe('text/csv; charset=utf-8')
    expect(response.headers.get('Content-Disposition')).toMatch(
      /attachment; filename="certificates-\d{4}-\d\d-\d\d\.csv"/,
    )
    const text = await response.text()
    const records = parse(text, { columns: true }) as Record<string, string>[]
    expect(Object.keys(records[0])).toEqual([
      'code',
      'state',
      'kind',
      'title',
      'learner',
      'email',
      'issued',
      'hours',
      'issuer',
      'revoked at',
      'revoked reason',
      'verify URL',
    ])
    expect(records.every((r) => r.kind === 'course' && r.title === 'Dimensional Modelling')).toBe(true)
    expect(records).toHaveLength((await listed({ courseId: course.id })).length)
    const mallorys = records.find((r) => r.email === 'mallory@example.com')!
    expect(mallorys.learner).toBe(`'=HYPERLINK("http://evil.test") Mallory`)
    expect(mallorys).toMatchObject({ state: 'valid', hours: '0.2', issuer: ISSUER })
    expect(mallorys['verify URL']).toMatch(new RegExp(`/verify/${mallorys.code}$`))

    const revoked = parse(await (await download('?state=revoked&q=costa')).text(), { columns: true }) as Record<
      string,
      string
    >[]
    expect(revoked.map((r) => [r.learner, r.state, r['revoked reason']])).toEqual([
      ['Bruno Costa', 'revoked', 'Completed on a shared account.'],
    ])
  })

  it('is for the admin side, and refuses a filter it cannot read as plain text', async () => {
    expect((await download('', session.coach.cookie)).status).toBe(200)
    const learner = await download('', session.learner.cookie)
    expect(learner.status).toBe(302)
    const wrong = await download('?state=lost')
    expect(wrong.status).toBe(400)
    expect(await wrong.text()).toBe('State must be valid or revoked.\n')
  })
})
