import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import * as root from '#app/root.tsx'
import * as publicLayout from '#app/routes/_public+/_layout.tsx'
import * as courseView from '#app/routes/_public+/course-view.$courseId.tsx'
import * as preview from '#app/routes/_public+/preview.$courseId.$videoId.tsx'
import { redirectWithSuccess } from '#app/utils/toast.server.ts'
import { makeCourse } from '#tests/factories.ts'
import { parsePage } from '#tests/render.tsx'
import { serve, standInBuild } from '#tests/stand-in-build.ts'

// A redirect's one-time message in the HTML of the page it leads to, through the web server and
// Remix's handler with the real root: a browser without JavaScript reads it there. The build is a
// stand-in (tests/stand-in-build.ts) so no `remix build` is needed.

const routes = {
  root,
  'routes/_public+/_layout': publicLayout,
  'routes/_public+/course-view.$courseId': courseView,
  'routes/_public+/preview.$courseId.$videoId': preview,
}

let server: Awaited<ReturnType<typeof serve>>
let base: string
const created = { courseId: '', cookie: '' }

beforeAll(async () => {
  // an action's redirect with a success, made before the server installs Remix's globals (Headers
  // without getSetCookie)
  const course = await makeCourse()
  created.courseId = course.id
  created.cookie = toastCookie(await redirectWithSuccess(`/course-view/${course.id}`, 'Course created.'))
  server = await serve(await standInBuild(routes))
  base = server.base
})

afterAll(() => server.close())

/** The toast cookie a response sets, as the browser sends it back. */
function toastCookie(response: Response) {
  // Remix's fetch has no getSetCookie: its header joins the cookies with commas (not those of a date)
  const headers = response.headers as Headers & { getSetCookie?: () => string[] }
  const all = headers.getSetCookie?.() ?? (headers.get('Set-Cookie') ?? '').split(/,\s*(?=[\w-]+=)/)
  const cookie = all.find((c) => c.startsWith('toast-session='))?.split(';')[0]
  if (!cookie) throw new Error(`no toast cookie in the answer (${response.status})`)
  return cookie
}

async function get(path: string, cookie?: string) {
  return fetch(`${base}${path}`, { headers: cookie ? { Cookie: cookie } : {}, redirect: 'manual' })
}

describe('the flash message of a redirect', () => {
  it('is in the next page’s HTML as an alert, and the page after it no longer has it', async () => {
    const course = await makeCourse({ videos: [{ title: 'Teaser', preview: true }, { title: 'Paid lesson' }] })
    const refused = await get(`/preview/${course.id}/${course.videos[1].id}`)
    expect(refused.status).toBe(302)
    expect(new URL(refused.headers.get('Location') ?? '', base).pathname).toBe(`/course-view/${course.id}`)

    const landed = await get(`/course-view/${course.id}`, toastCookie(refused))
    expect(landed.status).toBe(200)
    const page = parsePage(await landed.text())
    // the region is in the page, before the header, not only in the data handed to the browser
    const alert = page.getByRole('alert')
    expect(alert).toHaveTextContent(/^Video is not available for preview!!!$/)
    expect(alert.compareDocumentPosition(page.getByRole('banner'))).toBe(alert.DOCUMENT_POSITION_FOLLOWING)

    const again = await get(`/course-view/${course.id}`, toastCookie(landed))
    const next = parsePage(await again.text())
    expect(next.getByText('Paid lesson')).toBeInTheDocument()
    expect(next.queryByRole('alert')).toBeNull()
    expect(next.queryByText('Video is not available for preview!!!')).toBeNull()
  })

  it('is a status, not an alert, for a success', async () => {
    const page = parsePage(await (await get(`/course-view/${created.courseId}`, created.cookie)).text())
    expect(page.getByRole('status')).toHaveTextContent(/^Course created\.$/)
    expect(page.queryByRole('alert')).toBeNull()
  })
})
