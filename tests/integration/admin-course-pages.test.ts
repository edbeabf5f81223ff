import { beforeAll, describe, expect, it } from 'vitest'
import * as coursePage from '#app/routes/admin+/course.$courseId.tsx'
import * as coursesPage from '#app/routes/admin+/courses.tsx'
import * as newCoursePage from '#app/routes/admin+/newCourse.tsx'
import * as newVideoPage from '#app/routes/admin+/newVideo.tsx'
import * as rearrangeCoursePage from '#app/routes/admin+/rearrangeCourse.$courseId.tsx'
import * as rearrangeDocsPage from '#app/routes/admin+/RearrangeDocs.$courseId.tsx'
import { db } from '#db/client.ts'
import { makeAdmin, makeCoach, makeCourse, makeDocument, makeStoredFile } from '#tests/factories.ts'
import { elfBytes, pdfBytes, pngBytes } from '#tests/fixtures/files.ts'
import { renderRoute, type RouteModule } from '#tests/render.tsx'
import { call } from '#tests/requests.ts'
import { sessionCookieFor, toastOf } from '#tests/sessions.ts'

// The admin course pages as a browser without JavaScript uses them: plain and multipart form posts.

let adminCookie: string
let coachCookie: string

beforeAll(async () => {
  adminCookie = await sessionCookieFor((await makeAdmin()).userName)
  coachCookie = await sessionCookieFor((await makeCoach()).userName)
})

type Reply = { result: { error: Record<string, string[] | null>; initialValue: Record<string, unknown> } }
const errorsOf = async (response: Response) => ((await response.json()) as Reply).result.error

const post = (
  route: { action: unknown },
  path: string,
  body: FormData | URLSearchParams,
  params: Record<string, string> = {},
  cookie = adminCookie,
) => call(route.action as never, path, { method: 'POST', body, params, headers: { Cookie: cookie } })

const form = (entries: Record<string, string | File>) => {
  const data = new FormData()
  for (const [name, value] of Object.entries(entries)) data.append(name, value)
  return data
}

describe('Course List', () => {
  it('pages, searches and sorts on the server', async () => {
    for (const title of ['Paging A', 'Paging B', 'Paging C']) await makeCourse({ title })
    const load = async (query: string) => {
      const response = await call(coursesPage.loader as never, `/admin/courses?${query}`, {
        headers: { Cookie: adminCookie },
      })
      return (await response.json()) as { rows: { title: string }[]; total: number; canEdit: boolean }
    }
    const searched = await load('q=paging&size=7&sort=title&dir=desc')
    expect(searched.rows.map((r) => r.title)).toEqual(['Paging C', 'Paging B', 'Paging A'])
    expect(searched).toMatchObject({ total: 3, canEdit: true })
    const coach = await call(coursesPage.loader as never, '/admin/courses?q=paging', {
      headers: { Cookie: coachCookie },
    })
    expect(((await coach.json()) as { canEdit: boolean }).canEdit).toBe(false)
  })
})

describe('Add New Course', () => {
  it('creates a course with the image posted in the form, and goes to its page', async () => {
    const image = new File([new Uint8Array(pngBytes())], 'cover.png', { type: 'image/png' })
    const response = await post(
      newCoursePage,
      '/admin/newCourse',
      form({ title: 'Posted Without Script', description: 'Made by a plain form.', courseImage: image }),
    )
    expect(response.status).toBe(302)
    expect(response.headers.get('Location')).toMatch(/^\/admin\/course\/[0-9a-f-]{36}$/)
    expect(await toastOf(response)).toMatchObject({ type: 'success', message: 'Course created.' })
  })

  it('keeps what was typed and stores nothing when the image is refused or a field is missing', async () => {
    const { StoredFile, Course } = await db()
    const [files, courses] = [await StoredFile.count(), await Course.count()]
    const wrong = new File([new Uint8Array(elfBytes())], 'cover.png', { type: 'image/png' })
    const refused = await post(
      newCoursePage,
      '/admin/newCourse',
      form({ title: 'Kept Title', description: 'Kept text', courseImage: wrong }),
    )
    expect(refused.status).toBe(415)
    const reply = (await refused.json()) as Reply
    expect(reply.result.error.courseImage).toEqual(['Only png, gif and jpeg images are accepted.'])
    expect(reply.result.initialValue).toMatchObject({ title: 'Kept Title', description: 'Kept text' })

    const image = new File([new Uint8Array(pngBytes())], 'cover.png', { type: 'image/png' })
    const missing = await post(
      newCoursePage,
      '/admin/newCourse',
      form({ title: '', description: '', courseImage: image }),
    )
    expect(await errorsOf(missing)).toMatchObject({
      title: ['Course Title is required field.'],
      description: ['Please enter course description.'],
    })
    expect(await StoredFile.count()).toBe(files)
    expect(await Course.count()).toBe(courses)
  })

  it('sends a coach back with a toast', async () => {
    const response = await call(newCoursePage.loader as never, '/admin/newCourse', { headers: { Cookie: coachCookie } })
    expect(response.headers.get('Location')).toBe('/admin/courses')
    expect(await toastOf(response)).toMatchObject({ message: 'Only admins can change courses and their contents.' })
  })
})

describe('Add New Video', () => {
  it('offers the chosen course’s videos as prerequisites and adds the video at the end', async () => {
    const course = await makeCourse({ videos: [{ title: 'Basics' }] })
    const loaded = await call(newVideoPage.loader as never, `/admin/newVideo?courseId=${course.id}`, {
      headers: { Cookie: adminCookie },
    })
    expect(((await loaded.json()) as { videos: unknown[] }).videos).toEqual([
      { id: course.videos[0].id, title: 'Basics' },
    ])

    const body = new URLSearchParams({
      relatedCourse: course.id,
      title: 'Joins',
      description: 'Inner and outer.',
      embedUrl: 'https://youtu.be/dQw4w9WgXcQ',
      duration: '10:00',
      visibility: 'true',
      preview: 'false',
    })
    body.append('prerequisiteVideos', course.videos[0].id)
    const response = await post(newVideoPage, '/admin/newVideo', body)
    expect(response.headers.get('Location')).toBe(`/admin/course/${course.id}?tab=videos`)
    const { ContentEntry } = await db()
    const joins = await ContentEntry.findOne({ where: { courseId: course.id, title: 'Joins' } })
    expect(joins).toMatchObject({ orderId: 1, duration: 600 })

    const bad = await post(newVideoPage, '/admin/newVideo', new URLSearchParams({ embedUrl: 'https://evil.example/x' }))
    expect(await errorsOf(bad)).toMatchObject({
      relatedCourse: ['Video Related Course is required field.'],
      title: ['Video Title is required.'],
      description: ['Description is required.'],
    })
  })
})

describe('the course page', () => {
  it('edits a video (hide it), then deletes it, with toasts', async () => {
    const course = await makeCourse({ videos: [{ title: 'One' }, { title: 'Two', after: [0] }] })
    const params = { courseId: course.id }
    const path = `/admin/course/${course.id}?tab=videos&edit=${course.videos[0].id}&intent=editVideo`
    const edited = await post(
      coursePage,
      path,
      new URLSearchParams({
        videoId: course.videos[0].id,
        title: 'One revised',
        description: 'D',
        embedUrl: 'https://youtu.be/dQw4w9WgXcQ',
        visibility: 'false',
        preview: 'true',
      }),
      params,
    )
    expect(edited.headers.get('Location')).toBe(`/admin/course/${course.id}?tab=videos`)
    expect(await toastOf(edited)).toMatchObject({ type: 'success', message: 'Video "One revised" updated.' })
    const { ContentEntry } = await db()
    expect(await ContentEntry.findByPk(course.videos[0].id)).toMatchObject({ visibility: false, preview: true })

    const invalid = await post(coursePage, path, new URLSearchParams({ videoId: course.videos[0].id }), params)
    expect(invalid.status).toBe(400)
    expect(await errorsOf(invalid)).toMatchObject({ title: ['Video Title is required field.'] })

    const deleted = await post(
      coursePage,
      `/admin/course/${course.id}?tab=videos&intent=deleteVideo`,
      new URLSearchParams({ videoId: course.videos[0].id }),
      params,
    )
    expect(await toastOf(deleted)).toMatchObject({
      message: 'Video "One revised" deleted; it is no longer a prerequisite of Two.',
    })
  })

  it('edits a document with a new file posted in the form, and refuses a coach', async () => {
    const course = await makeCourse()
    const document = await makeDocument(course.id)
    const path = `/admin/course/${course.id}?tab=documents&edit=${document.id}&intent=editDocument`
    const file = new File([new Uint8Array(await pdfBytes())], 'v2.pdf', { type: 'application/pdf' })
    const fields = { documentId: document.id, orderId: '0', visibility: 'false' }
    const byCoach = await post(
      coursePage,
      path,
      form({ ...fields, courseDocument: file }),
      { courseId: course.id },
      coachCookie,
    )
    expect(byCoach.headers.get('Location')).toBe(`/admin/course/${course.id}`)

    const response = await post(coursePage, path, form({ ...fields, courseDocument: file }), { courseId: course.id })
    expect(response.headers.get('Location')).toBe(`/admin/course/${course.id}?tab=documents`)
    const { ContentEntry, StoredFile } = await db()
    const entry = await ContentEntry.findByPk(document.id)
    expect(entry).toMatchObject({ visibility: false, title: 'v2.pdf' })
    expect(await StoredFile.findByPk(document.fileKey)).toBeNull()

    const missingOrder = await post(coursePage, path, form({ documentId: document.id, orderId: '' }), {
      courseId: course.id,
    })
    expect(await errorsOf(missingOrder)).toMatchObject({ orderId: ['Order Id is required field.'] })
  })

  it('edits the course details with an image uploaded before (its JSON in the form)', async () => {
    const course = await makeCourse({ title: 'Before' })
    const image = await makeStoredFile('course_image')
    const response = await post(
      coursePage,
      `/admin/course/${course.id}?tab=videos&edit=course&intent=editCourse`,
      form({ title: 'After', description: 'New words', courseImage: JSON.stringify(image) }),
      { courseId: course.id },
    )
    expect(await toastOf(response)).toMatchObject({ message: 'Course details saved.' })
    const { Course } = await db()
    expect(await Course.findByPk(course.id)).toMatchObject({ title: 'After', imageKey: image.key })
  })

  it('keeps the current image when no other is chosen, as the dialog posts it', async () => {
    const course = await makeCourse({ title: 'Kept Image' })
    const image = await makeStoredFile('course_image')
    const { Course, StoredFile } = await db()
    await Course.update({ imageKey: image.key }, { where: { id: course.id } })
    const path = `/admin/course/${course.id}?tab=videos&edit=course&intent=editCourse`
    // as a browser posts the dialog: the empty file picker, then the current image's JSON under the same name
    const posted = form({ title: 'Kept Image', description: 'Only the words changed' })
    posted.append('courseImage', new File([], '', { type: 'application/octet-stream' }))
    posted.append('courseImage', JSON.stringify(image))
    const response = await post(coursePage, path, posted, { courseId: course.id })
    expect(await toastOf(response)).toMatchObject({ message: 'Course details saved.' })
    expect(await Course.findByPk(course.id)).toMatchObject({
      description: 'Only the words changed',
      imageKey: image.key,
    })
    expect(await StoredFile.findByPk(image.key)).not.toBeNull()

    // a course without an image still needs one
    const bare = await makeCourse({ title: 'No Image' })
    const missing = await post(
      coursePage,
      `/admin/course/${bare.id}?tab=videos&edit=course&intent=editCourse`,
      form({ title: 'No Image', description: 'Words', courseImage: new File([], '') }),
      { courseId: bare.id },
    )
    expect(missing.status).toBe(400)
    expect(await errorsOf(missing)).toMatchObject({ courseImage: ['Course Image is required.'] })
  })
})

describe('the course page’s buttons and empty tabs', () => {
  /** The course page as the server renders it before any JavaScript runs, for the admin unless told. */
  const render = (courseId: string, tab: string, cookie = adminCookie) =>
    renderRoute(coursePage as RouteModule, `/admin/course/${courseId}?tab=${tab}`, {
      cookie,
      pattern: '/admin/course/:courseId',
    })

  it('show Rearrange Course and Edit Course Details only when the course has more than one video', async () => {
    for (const count of [0, 1, 2]) {
      const course = await makeCourse({ videos: Array.from({ length: count }, () => ({})) })
      const page = await render(course.id, 'videos')
      const what = `${count} videos`
      expect(page.getByRole('link', { name: 'Add New Video' }), what).toHaveAttribute(
        'href',
        `/admin/newVideo?courseId=${course.id}`,
      )
      const rearrange = page.queryByRole('link', { name: 'Rearrange Course' })
      const edit = page.queryByRole('link', { name: 'Edit Course Details' })
      if (count > 1) {
        expect(rearrange).toHaveAttribute('href', `/admin/rearrangeCourse/${course.id}`)
        expect(edit).toHaveAttribute('href', expect.stringContaining('edit=course'))
      } else {
        expect(rearrange, what).not.toBeInTheDocument()
        expect(edit, what).not.toBeInTheDocument()
      }
      expect(page.queryByText('No videos yet') !== null, what).toBe(count === 0)
    }
  })

  it('show Rearrange Documents or Rearrange Scenarios only with more than one, and say when there are none', async () => {
    for (const [kind, tab, rearrange, empty, type] of [
      ['document', 'documents', 'Rearrange Documents', 'No Documents found', 'document'],
      ['scenario', 'scenarios', 'Rearrange Scenarios', 'No Scenarios found', 'scenarios'],
    ] as const) {
      for (const count of [0, 1, 2]) {
        const course = await makeCourse()
        for (let orderId = 0; orderId < count; orderId++)
          await makeDocument(course.id, { kind, orderId, name: `${kind}-${orderId}.pdf` })
        // an item of the other list does not count
        await makeDocument(course.id, { kind: kind === 'document' ? 'scenario' : 'document', name: 'other.pdf' })
        const page = await render(course.id, tab)
        const what = `${count} ${kind}s`
        const button = page.queryByRole('link', { name: rearrange })
        if (count > 1) expect(button, what).toHaveAttribute('href', `/admin/RearrangeDocs/${course.id}?type=${type}`)
        else expect(button, what).not.toBeInTheDocument()
        expect(page.queryByText(empty) !== null, what).toBe(count === 0)
        expect(page.queryByRole('link', { name: `${kind}-0.pdf` }) !== null, what).toBe(count > 0)
        expect(page.queryByText('other.pdf')).not.toBeInTheDocument()
      }
    }
  })

  it('open a document by its name in a viewer that shows a PDF and offers it for download', async () => {
    const course = await makeCourse()
    const document = await makeDocument(course.id, { name: 'handbook.pdf' })
    const link = `/files/${encodeURIComponent(document.fileKey)}`
    const list = await render(course.id, 'documents')
    expect(list.getByRole('link', { name: 'handbook.pdf' })).toHaveAttribute(
      'href',
      expect.stringContaining(`view=${document.id}`),
    )
    expect(list.queryByTitle('handbook.pdf')).not.toBeInTheDocument()

    // without JavaScript the viewer is a panel in the page; with it, the same content in a dialog
    const page = await render(course.id, `documents&view=${document.id}`)
    expect(page.getByTitle('handbook.pdf')).toHaveAttribute('src', link)
    const download = page.getByRole('link', { name: 'Download' })
    expect(download).toHaveAttribute('href', link)
    expect(download).toHaveAttribute('download', 'handbook.pdf')

    // a file the browser cannot show is offered for download only
    const slides = await makeDocument(course.id, {
      name: 'slides.pptx',
      contentType: 'application/vnd.openxmlformats-officedocument.presentationml.presentation',
      orderId: 1,
    })
    const other = await render(course.id, `documents&view=${slides.id}`)
    expect(other.queryByTitle('slides.pptx')).not.toBeInTheDocument()
    expect(other.getByText(/^This file cannot be shown in the browser\./)).toBeInTheDocument()
    expect(other.getByRole('link', { name: 'Download' })).toHaveAttribute('download', 'slides.pptx')
  })

  it('show a coach no buttons at all', async () => {
    const course = await makeCourse({ videos: [{}, {}] })
    await makeDocument(course.id)
    await makeDocument(course.id, { orderId: 1 })
    const videos = await render(course.id, 'videos', coachCookie)
    // the page itself is there, the videos listed
    expect(videos.getByRole('heading', { level: 1 })).toBeInTheDocument()
    for (const name of ['Add New Video', 'Rearrange Course', 'Edit Course Details'])
      expect(videos.queryByRole('link', { name }), name).not.toBeInTheDocument()
    const documents = await render(course.id, 'documents', coachCookie)
    for (const name of ['Add Documents', 'Rearrange Documents'])
      expect(documents.queryByRole('link', { name }), name).not.toBeInTheDocument()
  })
})

describe('bad requests to the page actions', () => {
  const jsonPost = (path: string, params: Record<string, string>, route: { action: unknown } = coursePage) =>
    call(route.action as never, path, {
      method: 'POST',
      params,
      headers: { Cookie: adminCookie, 'Content-Type': 'application/json' },
      body: '{"x":1}',
    })

  it('answer 400 with form errors, never 500', async () => {
    const course = await makeCourse({ videos: [{}] })
    const params = { courseId: course.id }
    const at = (intent: string) => `/admin/course/${course.id}?intent=${intent}`

    const video = await jsonPost(at('editVideo'), params)
    expect(video.status).toBe(400)
    expect(await errorsOf(video)).toMatchObject({
      videoId: ['Video is required.'],
      title: ['Video Title is required field.'],
    })
    // the forms that may carry a file are read as multipart: anything else is refused as a whole
    const details = await jsonPost(at('editCourse'), params)
    expect(details.status).toBe(400)
    expect(await errorsOf(details)).toMatchObject({ '': ['Send the file as multipart/form-data.'] })
    const document = await jsonPost(at('editDocument'), params)
    expect(document.status).toBe(400)
    expect(await errorsOf(document)).toMatchObject({ '': ['Send the file as multipart/form-data.'] })

    expect((await jsonPost('/admin/newCourse', params, newCoursePage)).status).toBe(400)
    expect((await jsonPost('/admin/newVideo', params, newVideoPage)).status).toBe(400)
    // a refusal no form shows goes back to the tab, as every such refusal of the page does
    const unknown = await jsonPost(`${at('somethingElse')}&tab=documents`, params)
    expect(unknown.status).toBe(302)
    expect(unknown.headers.get('Location')).toBe(`/admin/course/${course.id}?tab=documents`)
    expect(await toastOf(unknown)).toMatchObject({ type: 'error', message: 'Unknown action.' })
  })

  it('send the deletes back to the tab with an error toast, and delete nothing', async () => {
    const course = await makeCourse({ videos: [{}] })
    const params = { courseId: course.id }
    for (const [intent, message] of [
      ['deleteVideo', 'Video not found in this course.'],
      ['deleteDocument', 'Document not found in this course.'],
    ]) {
      const refused = await jsonPost(`/admin/course/${course.id}?intent=${intent}`, params)
      expect(refused.status, intent).toBe(302)
      expect(refused.headers.get('Location'), intent).toBe(`/admin/course/${course.id}?tab=videos`)
      expect(await toastOf(refused), intent).toMatchObject({ type: 'error', message })
    }
    const { ContentEntry } = await db()
    expect(await ContentEntry.count({ where: { courseId: course.id } })).toBe(1)

    // a tab that smuggles a header is not echoed into the redirect
    const crlf = await jsonPost(`/admin/course/${course.id}?intent=deleteVideo&tab=%0d%0aSet-Cookie:x`, params)
    expect(crlf.status).toBe(302)
    expect(crlf.headers.get('Location')).toBe(`/admin/course/${course.id}?tab=videos`)
    expect(crlf.headers.getSetCookie().every((c) => c.startsWith('toast-session='))).toBe(true)
    expect(await toastOf(crlf)).toMatchObject({ type: 'error', message: 'Video not found in this course.' })
  })
})

describe('the rearrange pages', () => {
  it('save the posted order and go back to the tab', async () => {
    const course = await makeCourse({ videos: [{ title: 'A' }, { title: 'B' }, { title: 'C' }] })
    const [a, b, c] = course.videos
    const body = new URLSearchParams()
    for (const id of [c.id, a.id, b.id]) body.append('order', id)
    const response = await post(rearrangeCoursePage, `/admin/rearrangeCourse/${course.id}`, body, {
      courseId: course.id,
    })
    expect(response.headers.get('Location')).toBe(`/admin/course/${course.id}?tab=videos`)
    const { ContentEntry } = await db()
    const order = await ContentEntry.findAll({ where: { courseId: course.id }, order: [['orderId', 'ASC']] })
    expect(order.map((v) => v.title)).toEqual(['C', 'A', 'B'])

    // without JavaScript: position numbers (ties keep the current order)
    const positions = new URLSearchParams([
      [`position:${c.id}`, '3'],
      [`position:${a.id}`, '1'],
      [`position:${b.id}`, '1'],
    ])
    await post(rearrangeCoursePage, `/admin/rearrangeCourse/${course.id}`, positions, { courseId: course.id })
    const typed = await ContentEntry.findAll({ where: { courseId: course.id }, order: [['orderId', 'ASC']] })
    expect(typed.map((v) => v.title)).toEqual(['A', 'B', 'C'])

    const partial = new URLSearchParams([['order', a.id]])
    const refused = await post(rearrangeCoursePage, `/admin/rearrangeCourse/${course.id}`, partial, {
      courseId: course.id,
    })
    expect(refused.status).toBe(400)
  })

  it('refuse the items of another course or another list', async () => {
    const course = await makeCourse({ videos: [{ title: 'A' }, { title: 'B' }] })
    const other = await makeCourse({ videos: [{ title: 'X' }, { title: 'Y' }] })
    const body = new URLSearchParams(other.videos.map((v) => ['order', v.id]))
    const refused = await post(rearrangeCoursePage, `/admin/rearrangeCourse/${course.id}`, body, {
      courseId: course.id,
    })
    expect(refused.status).toBe(400)
    // the one shape of a refusal, which the page shows above the list
    const reply = (await refused.json()) as Record<string, unknown>
    expect(Object.keys(reply)).toEqual(['message'])
    expect(reply.message).toEqual(expect.any(String))
    const document = await makeDocument(course.id)
    const second = await makeDocument(course.id, { orderId: 1 })
    const asScenarios = new URLSearchParams([
      ['order', second.id],
      ['order', document.id],
    ])
    const wrongList = await post(rearrangeDocsPage, `/admin/RearrangeDocs/${course.id}?type=scenarios`, asScenarios, {
      courseId: course.id,
    })
    expect(wrongList.status).toBe(400)
  })

  it('list the documents or the scenarios as ?type says', async () => {
    const course = await makeCourse()
    await makeDocument(course.id, { name: 'doc.pdf' })
    await makeDocument(course.id, { kind: 'scenario', name: 'case.pdf' })
    const load = async (type: string) =>
      (await (
        await call(rearrangeDocsPage.loader as never, `/admin/RearrangeDocs/${course.id}?type=${type}`, {
          headers: { Cookie: adminCookie },
          params: { courseId: course.id },
        })
      ).json()) as { items: { label: string }[] }
    expect((await load('document')).items.map((i) => i.label)).toEqual(['doc.pdf'])
    expect((await load('scenarios')).items.map((i) => i.label)).toEqual(['case.pdf'])
  })
})
