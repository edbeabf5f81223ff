import { beforeAll, describe, expect, it } from 'vitest'
import * as coursePage from '#app/routes/_learner+/course.$courseId._index.tsx'
import * as profilePage from '#app/routes/_learner+/editProfile.tsx'
import * as passwordPage from '#app/routes/_learner+/Passwordreset.tsx'
import * as contactPage from '#app/routes/_public+/contact-Us.tsx'
import * as courseView from '#app/routes/_public+/course-view.$courseId.tsx'
import * as explore from '#app/routes/_public+/explore-courses.tsx'
import * as preview from '#app/routes/_public+/preview.$courseId.$videoId.tsx'
import { db } from '#db/client.ts'
import { assignCourse, makeAdmin, makeCourse, makeDocument, makeLearner, PASSWORD } from '#tests/factories.ts'
import { elfBytes, pdfBytes } from '#tests/fixtures/files.ts'
import { call } from '#tests/requests.ts'
import { sessionCookieFor, toastOf } from '#tests/sessions.ts'

type Reply = { result: { error: Record<string, string[] | null>; initialValue: Record<string, unknown> } }

describe('the public catalogue', () => {
  it('lists every course for visitors, searched case-insensitively', async () => {
    await makeCourse({ title: 'Public Partitioning' })
    const data = (await (await call(explore.loader as never, '/explore-courses?q=PARTITION')).json()) as {
      courses: { title: string }[]
    }
    expect(data.courses.map((c) => c.title)).toEqual(['Public Partitioning'])
  })

  it('shows a course overview without the addresses of videos that are not previews', async () => {
    const course = await makeCourse({
      videos: [
        { title: 'Teaser', preview: true },
        { title: 'Paid lesson' },
        { title: 'Hidden', visibility: false, preview: true },
      ],
    })
    const response = await call(courseView.loader as never, `/course-view/${course.id}`, {
      params: { courseId: course.id },
    })
    const text = await response.text()
    const data = JSON.parse(text) as { course: { videos: { title: string; preview: boolean }[] } }
    expect(data.course.videos.map((v) => [v.title, v.preview])).toEqual([
      ['Teaser', true],
      ['Paid lesson', false],
    ])
    expect(text).not.toContain('embed')
  })

  it('plays a free preview and refuses any other video with the old client’s message', async () => {
    const course = await makeCourse({ videos: [{ title: 'Teaser', preview: true }, { title: 'Paid lesson' }] })
    const [teaser, paid] = course.videos
    const open = (videoId: string) =>
      call(preview.loader as never, `/preview/${course.id}/${videoId}`, { params: { courseId: course.id, videoId } })
    const ok = (await (await open(teaser.id)).json()) as { video: { embedUrl: string } }
    expect(ok.video.embedUrl).toMatch(/^https:\/\/www\.youtube-nocookie\.com\/embed\//)
    const refused = await open(paid.id)
    expect(refused.headers.get('Location')).toBe(`/course-view/${course.id}`)
    expect(await toastOf(refused)).toMatchObject({ type: 'error', message: 'Video is not available for preview!!!' })
  })
})

describe('My Assessment on the course page', () => {
  let learner: Awaited<ReturnType<typeof makeLearner>>
  let cookie: string
  beforeAll(async () => {
    learner = await makeLearner()
    cookie = await sessionCookieFor(learner.userName)
  })

  it('takes the file with the form (no JavaScript) and registers it against the chosen scenario', async () => {
    const course = await makeCourse()
    await assignCourse(learner.id, course.id)
    const scenario = await makeDocument(course.id, { kind: 'scenario', name: 'Case.pdf' })
    const form = new FormData()
    form.append('relatedScenarioId', scenario.id)
    form.append(
      'courseDocument',
      new File([new Uint8Array(await pdfBytes())], 'answer.pdf', { type: 'application/pdf' }),
    )
    const response = await call(coursePage.action as never, `/course/${course.id}?assessment=new`, {
      method: 'POST',
      body: form,
      headers: { Cookie: cookie },
      params: { courseId: course.id },
    })
    expect(response.headers.get('Location')).toBe(`/course/${course.id}`)
    expect(await toastOf(response)).toMatchObject({ message: 'Assessment submitted.' })
    const page = (await (
      await call(coursePage.loader as never, `/course/${course.id}`, {
        headers: { Cookie: cookie },
        params: { courseId: course.id },
      })
    ).json()) as { assessments: { document: { name: string }; scenarioName: string }[] }
    expect(page.assessments).toEqual([
      expect.objectContaining({ document: expect.objectContaining({ name: 'answer.pdf' }), scenarioName: 'Case.pdf' }),
    ])
  })

  it('answers "Please Upload a document", refuses a wrong type, and stores nothing', async () => {
    const course = await makeCourse()
    await assignCourse(learner.id, course.id)
    const scenario = await makeDocument(course.id, { kind: 'scenario' })
    const { StoredFile } = await db()
    const before = await StoredFile.count()
    const post = (form: FormData) =>
      call(coursePage.action as never, `/course/${course.id}?assessment=new`, {
        method: 'POST',
        body: form,
        headers: { Cookie: cookie },
        params: { courseId: course.id },
      })
    const missing = new FormData()
    missing.append('relatedScenarioId', scenario.id)
    expect(((await (await post(missing)).json()) as Reply).result.error.document).toEqual(['Please Upload a document'])
    const wrong = new FormData()
    wrong.append('relatedScenarioId', scenario.id)
    wrong.append('courseDocument', new File([new Uint8Array(elfBytes())], 'answer.pdf'))
    const refused = await post(wrong)
    expect(refused.status).toBe(415)
    const reply = (await refused.json()) as Reply
    expect(reply.result.error.document?.[0]).toMatch(/^Only csv, pdf, docx, ppt and pptx files are accepted/)
    expect(reply.result.initialValue.relatedScenarioId).toBe(scenario.id)
    expect(await StoredFile.count()).toBe(before)
  })
})

describe('Edit Profile and Reset Password pages', () => {
  it('save the profile, and after a password change sign the learner out to /sign-in', async () => {
    const learner = await makeLearner()
    const cookie = await sessionCookieFor(learner.userName)
    const saved = await call(profilePage.action as never, '/editProfile', {
      method: 'POST',
      headers: { Cookie: cookie },
      body: new URLSearchParams({ firstName: 'Paula', lastName: 'Page', userName: 'paula.page' }),
    })
    expect(await toastOf(saved)).toMatchObject({ message: 'Profile updated.' })
    const invalid = await call(profilePage.action as never, '/editProfile', {
      method: 'POST',
      headers: { Cookie: cookie },
      body: new URLSearchParams({ firstName: '', userName: 'ab' }),
    })
    expect(((await invalid.json()) as Reply).result.error).toMatchObject({
      firstName: ['Firstname field is required'],
      userName: ['UserName must be at least 4 characters'],
    })

    const wrong = await call(passwordPage.action as never, '/Passwordreset', {
      method: 'POST',
      headers: { Cookie: cookie },
      body: new URLSearchParams({
        currentPassword: 'Not-it-1!',
        password: 'Brand-new9#',
        confirmPassword: 'Brand-new9#',
      }),
    })
    const refused = ((await wrong.json()) as Reply).result
    expect(refused.error.currentPassword).toEqual(['The current password is not right.'])
    // a refused form never sends a typed password back to be rendered as a value
    expect(refused.initialValue).not.toHaveProperty('currentPassword')
    expect(refused.initialValue).not.toHaveProperty('password')
    expect(refused.initialValue).not.toHaveProperty('confirmPassword')

    const changed = await call(passwordPage.action as never, '/Passwordreset', {
      method: 'POST',
      headers: { Cookie: cookie },
      body: new URLSearchParams({ currentPassword: PASSWORD, password: 'Brand-new9#', confirmPassword: 'Brand-new9#' }),
    })
    expect(changed.headers.get('Location')).toBe('/sign-in')
    const cookies = changed.headers.getSetCookie()
    expect(cookies.some((c) => /^__portal_session=;/.test(c))).toBe(true)
    expect(await toastOf(changed)).toMatchObject({
      message: 'Password changed. Please sign in with your new password.',
    })
    // the old session no longer opens anything
    const after = await call(profilePage.loader as never, '/editProfile', { headers: { Cookie: cookie } })
    expect(after.headers.get('Location')).toBe('/sign-in?redirectTo=%2FeditProfile')
  })
})

describe('Contact Us', () => {
  it('mails the admins and thanks the sender, or shows what is missing', async () => {
    await makeAdmin()
    const sent = await call(contactPage.action as never, '/contact-Us', {
      method: 'POST',
      body: new URLSearchParams({
        name: 'Visitor',
        email: 'visitor@example.com',
        subject: 'Hello',
        message: 'A question.',
      }),
    })
    expect(sent.headers.get('Location')).toBe('/contact-Us')
    expect(await toastOf(sent)).toMatchObject({ type: 'success' })
    const empty = await call(contactPage.action as never, '/contact-Us', {
      method: 'POST',
      body: new URLSearchParams({}),
    })
    expect(((await empty.json()) as Reply).result.error).toMatchObject({
      name: ['Name is required field.'],
      message: ['Message is required field.'],
    })
  })
})
