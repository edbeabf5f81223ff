import { describe, expect, it } from 'vitest'
import { action as logoutAction } from '#app/routes/_auth+/logout.tsx'
import { action as signInAction, loader as signInLoader } from '#app/routes/_auth+/sign-in.tsx'
import { loader as learnerLayoutLoader } from '#app/routes/_learner+/_layout.tsx'
import { loader as videoLoader } from '#app/routes/_learner+/course.$courseId.$videoId.tsx'
import { loader as courseLoader } from '#app/routes/_learner+/course.$courseId._index.tsx'
import { loader as coursesLoader } from '#app/routes/_learner+/courses.tsx'
import { loader as landingLoader } from '#app/routes/_public+/_index.tsx'
import { loader as adminLayoutLoader } from '#app/routes/admin+/_layout.tsx'
import { db } from '#db/client.ts'
import {
  assignCourse,
  makeAdmin,
  makeCoach,
  makeCourse,
  makeLearner,
  PASSWORD,
  recordWatched,
} from '#tests/factories.ts'
import { call } from '#tests/requests.ts'
import { toastOf } from '#tests/sessions.ts'

type CourseShape = { videos: { lockedBy: string[] }[] }

/** Sign in through the page's action and return the session cookie it sets. */
async function signIn(login: string, password = PASSWORD, redirectTo = '') {
  const response = await call(signInAction, '/sign-in', {
    method: 'POST',
    body: new URLSearchParams({ email: login, password, redirectTo }),
  })
  const cookie = response.headers.get('Set-Cookie')?.split(';')[0] ?? ''
  return { response, cookie }
}

describe('the sign-in page', () => {
  it('signs a learner in and sends them to My Courses, or back where they came from', async () => {
    const learner = await makeLearner()
    const { response, cookie } = await signIn(learner.userName)
    expect(response.status).toBe(302)
    expect(response.headers.get('Location')).toBe('/courses')
    expect(cookie).toMatch(/^__portal_session=/)
    expect(response.headers.get('Set-Cookie')).toMatch(/HttpOnly/i)
    expect(response.headers.get('Set-Cookie')).toMatch(/SameSite=Lax/i)

    const back = await signIn(learner.email, PASSWORD, '/course/abc?tab=2')
    expect(back.response.headers.get('Location')).toBe('/course/abc?tab=2')
    const offSite = await signIn(learner.email, PASSWORD, 'https://evil.example/')
    expect(offSite.response.headers.get('Location')).toBe('/courses')
  })

  it('lands the admin side on the dashboard', async () => {
    const coach = await makeCoach()
    const { response } = await signIn(coach.email)
    expect(response.headers.get('Location')).toBe('/admin/dashboard')
  })

  it('answers wrong credentials with 401, the old client’s message as a toast, and no session', async () => {
    const learner = await makeLearner()
    for (const login of [learner.userName, 'nobody-here']) {
      const { response } = await signIn(login, 'Wrong-pass1!')
      expect(response.status).toBe(401)
      const cookies = response.headers.getSetCookie()
      expect(cookies.some((c) => c.startsWith('__portal_session='))).toBe(false)
      expect(await toastOf(response)).toMatchObject({ type: 'error', message: 'Invalid Username/Email or Password.' })
      const data = (await response.json()) as { result: { error: Record<string, string[]> } }
      expect(data.result.error['']).toEqual(['Invalid Username/Email or Password.'])
    }
  })

  it('answers a body that is not a form with 400, and a sign-in from another site with 403', async () => {
    const json = await call(signInAction, '/sign-in', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: '{"email":"x"}',
    })
    expect(json.status).toBe(400)
    const learner = await makeLearner()
    const crossSite = await call(signInAction, '/sign-in', {
      method: 'POST',
      headers: { 'Sec-Fetch-Site': 'cross-site' },
      body: new URLSearchParams({ email: learner.userName, password: PASSWORD }),
    })
    expect(crossSite.status).toBe(403)
    expect(crossSite.headers.get('Set-Cookie')).toBeNull()
  })

  it('answers empty fields with the old client’s messages', async () => {
    const response = await call(signInAction, '/sign-in', { method: 'POST', body: new URLSearchParams({}) })
    expect(response.status).toBe(400)
    const data = (await response.json()) as { result: { error: Record<string, string[]> } }
    expect(data.result.error.email).toEqual(['Username / Email is required field.'])
    expect(data.result.error.password).toEqual(['Password is required field.'])
  })

  it('sends a signed-in visitor on to their landing page', async () => {
    const learner = await makeLearner()
    const { cookie } = await signIn(learner.userName)
    const response = await call(signInLoader, '/sign-in', { headers: { Cookie: cookie } })
    expect(response.headers.get('Location')).toBe('/courses')
    const landing = await call(landingLoader, '/', { headers: { Cookie: cookie } })
    expect(landing.headers.get('Location')).toBe('/courses')
  })
})

describe('protected pages', () => {
  it('send an anonymous visitor to /sign-in remembering the page', async () => {
    const response = await call(learnerLayoutLoader, '/courses?q=sql')
    expect(response.status).toBe(302)
    expect(response.headers.get('Location')).toBe('/sign-in?redirectTo=%2Fcourses%3Fq%3Dsql')
  })

  it('send a visitor whose token was revoked to /sign-in and clear the cookie', async () => {
    const learner = await makeLearner()
    const { cookie } = await signIn(learner.userName)
    expect((await call(coursesLoader, '/courses', { headers: { Cookie: cookie } })).status).toBe(200)
    const { User } = await db()
    await User.increment('tokenVersion', { where: { id: learner.id } })
    const response = await call(learnerLayoutLoader, '/courses', { headers: { Cookie: cookie } })
    expect(response.headers.get('Location')).toBe('/sign-in?redirectTo=%2Fcourses')
    expect(response.headers.get('Set-Cookie')).toMatch(/__portal_session=;/)
  })

  it('keep a learner out of /admin and let the admin side in', async () => {
    const learner = await makeLearner()
    const { cookie } = await signIn(learner.userName)
    const turnedAway = await call(adminLayoutLoader, '/admin/dashboard', { headers: { Cookie: cookie } })
    expect(turnedAway.headers.get('Location')).toBe('/courses')
    const coach = await makeCoach()
    const coachSession = await signIn(coach.userName)
    const allowed = await call(adminLayoutLoader, '/admin/dashboard', { headers: { Cookie: coachSession.cookie } })
    expect(allowed.status).toBe(200)
  })

  it('ignore a logout sent from another site', async () => {
    const learner = await makeLearner()
    const { cookie } = await signIn(learner.userName)
    const response = await call(logoutAction, '/logout', {
      method: 'POST',
      headers: { Cookie: cookie, 'Sec-Fetch-Site': 'cross-site' },
    })
    expect(response.headers.get('Set-Cookie')).toBeNull()
  })

  it('end the session on logout', async () => {
    const learner = await makeLearner()
    const { cookie } = await signIn(learner.userName)
    const response = await call(logoutAction, '/logout', { method: 'POST', headers: { Cookie: cookie } })
    expect(response.headers.get('Location')).toBe('/')
    expect(response.headers.get('Set-Cookie')).toMatch(/__portal_session=;.*Max-Age=0|Expires=Thu, 01 Jan 1970/i)
  })
})

describe('the course and video pages', () => {
  it('send a learner back to My Courses with a toast for a course that is not assigned', async () => {
    const learner = await makeLearner()
    const course = await makeCourse({ videos: [{}] })
    const { cookie } = await signIn(learner.userName)
    const response = await call(courseLoader, `/course/${course.id}`, {
      headers: { Cookie: cookie },
      params: { courseId: course.id },
    })
    expect(response.headers.get('Location')).toBe('/courses')
    expect(await toastOf(response)).toMatchObject({ type: 'error', message: 'This course is not assigned to you.' })
  })

  it('give the neighbours of a video and refuse a locked one with the lock toast', async () => {
    const learner = await makeLearner()
    const course = await makeCourse({
      videos: [{ title: 'One' }, { title: 'Two' }, { title: 'Three', after: [1] }],
    })
    await assignCourse(learner.id, course.id)
    const { cookie } = await signIn(learner.userName)
    const open = async (index: number) =>
      call(videoLoader, `/course/${course.id}/${course.videos[index].id}`, {
        headers: { Cookie: cookie },
        params: { courseId: course.id, videoId: course.videos[index].id },
      })
    const first = (await (await open(0)).json()) as { previous: string | null; next: string | null }
    expect(first).toMatchObject({ previous: null, next: course.videos[1].id })

    const locked = await open(2)
    expect(locked.headers.get('Location')).toBe(`/course/${course.id}`)
    expect(await toastOf(locked)).toMatchObject({
      type: 'error',
      message: 'You have to finish Two videos to unlock this video',
    })

    await recordWatched(learner.id, course.id, course.videos[1], 100)
    const last = (await (await open(2)).json()) as { previous: string | null; next: string | null }
    expect(last).toMatchObject({ previous: course.videos[1].id, next: null })
  })

  it('open every video for the admin side, which records no progress, with no locks shown', async () => {
    const course = await makeCourse({ videos: [{ title: 'One' }, { title: 'Two', after: [0] }] })
    for (const staff of [await makeCoach(), await makeAdmin()]) {
      const { cookie } = await signIn(staff.userName)
      const videoId = course.videos[1].id
      const response = await call(videoLoader, `/course/${course.id}/${videoId}`, {
        headers: { Cookie: cookie },
        params: { courseId: course.id, videoId },
      })
      expect(response.status).toBe(200)
      const data = (await response.json()) as { video: { _id: string }; learner: boolean; course: CourseShape }
      expect(data).toMatchObject({ video: { _id: videoId }, learner: false })
      expect(data.course.videos.map((v) => v.lockedBy)).toEqual([[], []])
    }
  })
})
