import { beforeAll, describe, expect, it } from 'vitest'
import { storage } from '#app/modules/files/storage.server.ts'
import * as addCourseDocumentRoute from '#app/routes/api+/category.addCourseDocument.ts'
import * as addCourseImageRoute from '#app/routes/api+/category.addCourseImage.ts'
import * as addDocumentRoute from '#app/routes/api+/category.addDocument.ts'
import * as createCourseRoute from '#app/routes/api+/category.course.ts'
import * as courseRoute from '#app/routes/api+/category.course_.$courseId.ts'
import * as courseMetaRoute from '#app/routes/api+/category.courseMeta.$courseId.ts'
import * as coursesRoute from '#app/routes/api+/category.courses.ts'
import * as coursesListRoute from '#app/routes/api+/category.coursesList.ts'
import * as courseVideoRoute from '#app/routes/api+/category.courseVideo.$relatedCourseId.ts'
import * as deleteDocumentRoute from '#app/routes/api+/category.deleteDocument.$courseId.$documentId.ts'
import * as deleteVideoRoute from '#app/routes/api+/category.deleteVideo.$courseId.$videoId.ts'
import * as editCourseRoute from '#app/routes/api+/category.editCourseDetails.ts'
import * as editDocumentListRoute from '#app/routes/api+/category.editDocumentOrder.ts'
import * as editDocumentRoute from '#app/routes/api+/category.editDocumentOrder_.$documentId.ts'
import * as editVideoRoute from '#app/routes/api+/category.editVideo.$videoId.ts'
import * as editVideoOrderRoute from '#app/routes/api+/category.editVideoOrder.ts'
import * as getDocumentsRoute from '#app/routes/api+/category.getDocuments.$courseId.ts'
import * as createProgramRoute from '#app/routes/api+/program.createProgram.ts'
import * as getProgramsRoute from '#app/routes/api+/program.getPrograms.ts'
import { db } from '#db/client.ts'
import { assignCourse, makeCourse, makeDocument, makeLearner, makePeople, makeStoredFile } from '#tests/factories.ts'
import { pdfBytes, pngBytes } from '#tests/fixtures/files.ts'
import { body, call } from '#tests/requests.ts'

// Every course-content call of the /api: success, each validation failure, and each role.

let as: Awaited<ReturnType<typeof makePeople<'learner' | 'coach' | 'admin' | 'superAdmin'>>>
beforeAll(async () => {
  as = await makePeople('learner', 'coach', 'admin', 'superAdmin')
})

const get = (route: { loader: unknown }, path: string, token?: string, params: Record<string, string> = {}) =>
  call(route.loader as never, path, { token, params })
const send = (
  route: { action: unknown },
  method: 'POST' | 'PUT' | 'DELETE',
  path: string,
  json: unknown,
  token?: string,
  params: Record<string, string> = {},
) => call(route.action as never, path, { method, json: method === 'DELETE' ? undefined : json, token, params })

/** A write call refused to everyone but admins: 401 anonymous, 403 learner and coach. */
async function expectAdminsOnly(
  attempt: (token?: string) => Promise<Response>,
  message = 'Only admins can change courses and their contents.',
) {
  expect((await attempt(undefined)).status).toBe(401)
  expect((await attempt(as.learner.token)).status).toBe(403)
  const coach = await attempt(as.coach.token)
  expect(coach.status).toBe(403)
  expect(await body(coach)).toEqual({ message })
}

async function videoOrder(courseId: string) {
  const { ContentEntry } = await db()
  const rows = await ContentEntry.findAll({ where: { courseId, kind: 'video' }, order: [['orderId', 'ASC']] })
  return rows.map((r) => [r.title, r.orderId])
}

async function fileGone(key: string) {
  const { StoredFile } = await db()
  return (await StoredFile.findByPk(key)) === null && (await storage().get(key)) === undefined
}

describe('GET /api/category/courses and coursesList', () => {
  it('list the catalogue to any signed-in user with image and visible duration, and page on request', async () => {
    const course = await makeCourse({
      title: 'Catalogue Zeta',
      videos: [{ duration: 100 }, { duration: 50 }, { duration: 999, visibility: false }],
    })
    for (const role of ['learner', 'coach', 'admin', 'superAdmin'] as const) {
      const response = await get(coursesRoute, '/api/category/courses', as[role].token)
      expect(response.status).toBe(200)
      const { courses } = await body<{ courses: { _id: string; duration: number }[] }>(response)
      expect(courses.find((c) => c._id === course.id)).toMatchObject({ title: 'Catalogue Zeta', duration: 150 })
    }
    expect((await get(coursesRoute, '/api/category/courses')).status).toBe(401)

    const page = await body<{ courses: unknown[]; total: number; page: number; size: number }>(
      await get(coursesRoute, '/api/category/courses?page=1&size=1&q=catalogue zeta', as.admin.token),
    )
    expect(page).toMatchObject({ total: 1, page: 1, size: 1 })
    expect(page.courses).toHaveLength(1)
    expect((await get(coursesRoute, '/api/category/courses?page=0&size=7', as.admin.token)).status).toBe(400)

    const list = await body<{ courses: { _id: string; title: string }[] }>(
      await get(coursesListRoute, '/api/category/coursesList', as.learner.token),
    )
    expect(list.courses).toContainEqual({ _id: course.id, title: 'Catalogue Zeta' })
    expect(list).not.toHaveProperty('total')
    expect((await get(coursesListRoute, '/api/category/coursesList')).status).toBe(401)
  })

  it('coursesList gives the whole list by title, or one page of it with ?page=&size=', async () => {
    for (const title of ['Paged Aa', 'Paged Ab', 'Paged Ac']) await makeCourse({ title })
    const whole = await body<{ courses: { title: string }[] }>(
      await get(coursesListRoute, '/api/category/coursesList', as.admin.token),
    )
    const titles = whole.courses.map((c) => c.title)
    expect(titles.length).toBeGreaterThanOrEqual(3)
    const paged = await body<{ courses: { title: string }[]; total: number; page: number; size: number }>(
      await get(coursesListRoute, '/api/category/coursesList?page=2&size=2', as.learner.token),
    )
    expect(paged).toMatchObject({ total: titles.length, page: 2, size: 2 })
    expect(paged.courses.map((c) => c.title)).toEqual(titles.slice(2, 4))
    expect((await get(coursesListRoute, '/api/category/coursesList?page=0&size=2', as.admin.token)).status).toBe(400)
  })
})

describe('GET course/{id}, courseMeta/{id}, getDocuments/{id}', () => {
  it('tell a learner only of the prerequisites that lock a video, the admin side of all', async () => {
    const course = await makeCourse({
      videos: [
        { title: 'Hidden', visibility: false },
        { title: 'No Length', duration: null },
        { title: 'Real' },
        { title: 'Last', after: [0, 1, 2] },
      ],
    })
    const learner = await makeLearner()
    await assignCourse(learner.id, course.id)
    type Detail = { message: { videos: { title: string; prerequisiteVideos: { title: string }[] }[] } }
    const prerequisitesOfLast = async (token: string) => {
      const detail = await body<Detail>(
        await get(courseRoute, `/api/category/course/${course.id}`, token, { courseId: course.id }),
      )
      return detail.message.videos.find((v) => v.title === 'Last')?.prerequisiteVideos.map((p) => p.title)
    }
    expect(await prerequisitesOfLast(learner.token)).toEqual(['Real'])
    expect(await prerequisitesOfLast(as.admin.token)).toEqual(['Hidden', 'No Length', 'Real'])
  })

  it('give the admin side every entry, an assigned learner only visible ones, others nothing', async () => {
    const course = await makeCourse({
      videos: [{ title: 'Shown' }, { title: 'Hidden', visibility: false }, { title: 'Needs Shown', after: [0] }],
    })
    await makeDocument(course.id, { name: 'visible.pdf' })
    await makeDocument(course.id, { name: 'hidden.pdf', orderId: 1, visibility: false })
    await makeDocument(course.id, { kind: 'scenario', name: 'case.pdf' })
    const learner = await makeLearner()
    const params = { courseId: course.id }

    expect((await get(courseRoute, `/api/category/course/${course.id}`, undefined, params)).status).toBe(401)
    const refused = await get(courseRoute, `/api/category/course/${course.id}`, learner.token, params)
    expect(refused.status).toBe(403)
    expect(await body(refused)).toEqual({ message: 'This course is not assigned to you.' })
    await assignCourse(learner.id, course.id)

    type Detail = { message: { title: string; videos: { title: string; prerequisiteVideos: { title: string }[] }[] } }
    const seen = await body<Detail>(await get(courseRoute, `/api/category/course/${course.id}`, learner.token, params))
    expect(seen.message.videos.map((v) => v.title)).toEqual(['Shown', 'Needs Shown'])
    expect(seen.message.videos[1].prerequisiteVideos).toEqual([{ _id: course.videos[0].id, title: 'Shown' }])
    const all = await body<Detail>(await get(courseRoute, `/api/category/course/${course.id}`, as.coach.token, params))
    expect(all.message.videos.map((v) => v.title)).toEqual(['Shown', 'Hidden', 'Needs Shown'])

    type Data = {
      data: { _id: string; documentType?: string; document?: { name: string; link: string }; contentType?: string }[]
    }
    const meta = await body<Data>(await get(courseMetaRoute, '/x', learner.token, params))
    expect(meta.data).toHaveLength(4) // two visible videos, one visible document, one scenario
    const documents = await body<Data>(await get(getDocumentsRoute, '/x', learner.token, params))
    expect(documents.data.map((d) => [d.documentType, d.document?.name])).toEqual([
      ['Document', 'visible.pdf'],
      ['Scenarios', 'case.pdf'],
    ])
    expect(documents.data[0].document?.link).toMatch(/^\/files\/[0-9a-f-]{36}\.pdf$/)
    // so a viewer can tell whether the browser shows it (isInlineType)
    expect(documents.data[0].contentType).toBe('application/pdf')
    const adminDocuments = await body<Data>(await get(getDocumentsRoute, '/x', as.admin.token, params))
    expect(adminDocuments.data).toHaveLength(3)

    for (const id of ['00000000-0000-4000-8000-000000000000', 'nonsense'])
      expect((await get(courseRoute, `/x/${id}`, as.admin.token, { courseId: id })).status).toBe(404)
  })
})

describe('POST /api/category/course and PUT editCourseDetails', () => {
  it('create a course with an uploaded image, for admins only', async () => {
    const image = await makeStoredFile('course_image')
    const payload = { title: '  Window Functions  ', description: 'Rank, lag and lead.', courseImage: image }
    await expectAdminsOnly((token) => send(createCourseRoute, 'POST', '/api/category/course', payload, token))
    const response = await send(createCourseRoute, 'POST', '/api/category/course', payload, as.admin.token)
    expect(response.status).toBe(200)
    const { message, course } = await body<{ message: string; course: Record<string, unknown> }>(response)
    expect(message).toBe('Course created.')
    expect(course).toMatchObject({ title: 'Window Functions', courseImage: image, duration: null, videos: [] })
  })

  it('answer each missing field with the old client’s message and write nothing', async () => {
    const { Course } = await db()
    const before = await Course.count()
    const response = await send(createCourseRoute, 'POST', '/api/category/course', {}, as.admin.token)
    expect(response.status).toBe(400)
    expect(await body(response)).toMatchObject({
      errors: {
        title: 'Course Title is required field.',
        description: 'Please enter course description.',
        courseImage: 'Please Upload the Image.',
      },
    })
    // a key that was never uploaded, or a file uploaded as a document, is not an image
    for (const courseImage of [{ key: 'missing.png', link: '/x', name: 'x' }, await makeStoredFile('document')]) {
      const refused = await send(
        createCourseRoute,
        'POST',
        '/api/category/course',
        { title: 'T', description: 'D', courseImage },
        as.admin.token,
      )
      expect(refused.status).toBe(400)
      expect(await body(refused)).toMatchObject({ errors: { courseImage: 'Please Upload the Image.' } })
    }
    expect(await Course.count()).toBe(before)
  })

  it('make one course of the same request sent twice, and refuse the image for another course', async () => {
    const image = await makeStoredFile('course_image')
    const payload = { title: 'First', description: 'D', courseImage: image.key }
    const [a, b] = await Promise.all([
      send(createCourseRoute, 'POST', '/x', payload, as.admin.token),
      send(createCourseRoute, 'POST', '/x', payload, as.admin.token),
    ])
    const [first, repeated] = [await body<{ course: { _id: string } }>(a), await body<{ course: { _id: string } }>(b)]
    expect(repeated.course._id).toBe(first.course._id)
    const { Course } = await db()
    expect(await Course.count({ where: { imageKey: image.key } })).toBe(1)
    const second = await send(createCourseRoute, 'POST', '/x', { ...payload, title: 'Second' }, as.admin.token)
    expect(second.status).toBe(409)
    expect(await body(second)).toMatchObject({
      errors: { courseImage: 'That image already belongs to another course or program; upload it again.' },
    })
  })

  it('edit title, description and image, deleting the replaced image', async () => {
    const first = await makeStoredFile('course_image')
    const created = await body<{ course: { _id: string } }>(
      await send(
        createCourseRoute,
        'POST',
        '/x',
        { title: 'Old', description: 'Old', courseImage: first },
        as.admin.token,
      ),
    )
    const courseId = created.course._id
    const second = await makeStoredFile('course_image', { name: 'new.png' })
    const payload = { courseId, title: 'New title', description: 'New text', courseImage: second }
    await expectAdminsOnly((token) => send(editCourseRoute, 'PUT', '/x', payload, token))
    const response = await send(editCourseRoute, 'PUT', '/x', payload, as.superAdmin.token)
    expect(response.status).toBe(200)
    expect(await body(response)).toMatchObject({
      message: 'Course details saved.',
      course: { title: 'New title', description: 'New text', courseImage: second },
    })
    expect(await fileGone(first.key)).toBe(true)

    const empty = await send(editCourseRoute, 'PUT', '/x', { courseId }, as.admin.token)
    expect(await body(empty)).toMatchObject({
      errors: {
        title: 'Course Name is required field.',
        description: 'Description is required field.',
        courseImage: 'Course Image is required.',
      },
    })
    const unknown = { ...payload, courseId: '00000000-0000-4000-8000-000000000000' }
    expect((await send(editCourseRoute, 'PUT', '/x', unknown, as.admin.token)).status).toBe(404)
  })
})

describe('PUT /api/category/courseVideo/{relatedCourseId}', () => {
  const video = (overrides: Record<string, unknown> = {}) => ({
    title: 'Window functions: RANK() & LAG()',
    description: 'Ranking rows.',
    embedUrl: '<iframe src="https://www.youtube.com/embed/dQw4w9WgXcQ"></iframe>',
    duration: '12:30',
    ...overrides,
  })

  it('adds a video at the end with a normalised embed, prerequisites and flags', async () => {
    const course = await makeCourse({ videos: [{ title: 'First' }] })
    const add = (json: unknown, token?: string) =>
      send(courseVideoRoute, 'PUT', '/x', json, token, { relatedCourseId: course.id })
    await expectAdminsOnly((token) => add(video(), token))
    const response = await add(video({ prerequisiteVideos: [course.videos[0].id], preview: true }), as.admin.token)
    expect(response.status).toBe(200)
    const { message, video: created } = await body<{ message: string; video: Record<string, unknown> }>(response)
    expect(message).toBe('Video added.')
    expect(created).toMatchObject({
      relatedCourse: course.id,
      orderId: 1,
      title: 'Window functions: RANK() & LAG()',
      duration: 750,
      preview: true,
      visibility: true,
      embedUrl: 'https://www.youtube-nocookie.com/embed/dQw4w9WgXcQ',
      prerequisiteVideos: [{ _id: course.videos[0].id, title: 'First' }],
    })
  })

  it('answers each invalid field with its message', async () => {
    const course = await makeCourse()
    const add = (json: unknown) =>
      send(courseVideoRoute, 'PUT', '/x', json, as.admin.token, { relatedCourseId: course.id })
    expect(await body(await add({}))).toMatchObject({
      errors: {
        title: 'Video Title is required.',
        embedUrl: 'Embeded code is required.',
        description: 'Description is required.',
      },
    })
    expect(await body(await add(video({ title: 'Emoji 🎬 title' })))).toMatchObject({
      errors: { title: 'Title can only contain alphabets, numbers, and special characters.' },
    })
    const badEmbed = await add(video({ embedUrl: 'https://evil.example/video' }))
    expect(badEmbed.status).toBe(400)
    expect(await body(badEmbed)).toMatchObject({ errors: { embedUrl: expect.stringContaining('YouTube or Vimeo') } })
    expect(await body(await add(video({ duration: '99:99' })))).toMatchObject({
      errors: { duration: 'Duration must be a time like 12:30 or 1:02:03.' },
    })
    const other = await makeCourse({ videos: [{}] })
    expect(await body(await add(video({ prerequisiteVideos: [other.videos[0].id] })))).toMatchObject({
      errors: { prerequisiteVideos: 'Prerequisite videos must be other videos of this course.' },
    })
    const noCourse = await send(courseVideoRoute, 'PUT', '/x', video(), as.admin.token, {
      relatedCourseId: '00000000-0000-4000-8000-000000000000',
    })
    expect(noCourse.status).toBe(404)
    const badId = await send(courseVideoRoute, 'PUT', '/x', video(), as.admin.token, { relatedCourseId: 'abc' })
    expect(await body(badId)).toMatchObject({ errors: { relatedCourse: 'Video Related Course is required field.' } })
    const { ContentEntry } = await db()
    expect(await ContentEntry.count({ where: { courseId: course.id } })).toBe(0)
  })
})

describe('PUT /api/category/editVideo/{videoId}', () => {
  it('edits the fields, hides and unhides, and replaces prerequisites', async () => {
    const course = await makeCourse({ videos: [{ title: 'A' }, { title: 'B' }, { title: 'C', after: [0] }] })
    const [, b, c] = course.videos
    const edit = (json: Record<string, unknown>, token = as.admin.token) =>
      send(editVideoRoute, 'PUT', '/x', { courseId: course.id, ...json }, token, { videoId: c.id })
    const fields = { title: 'C revised', description: 'New', embedUrl: 'https://vimeo.com/76979871' }
    await expectAdminsOnly((token) =>
      send(editVideoRoute, 'PUT', '/x', { courseId: course.id, ...fields }, token, { videoId: c.id }),
    )

    const hidden = await edit({ ...fields, visibility: false, preview: true, prerequisiteVideos: [b.id] })
    expect(hidden.status).toBe(200)
    expect(await body(hidden)).toMatchObject({
      message: 'Video updated.',
      video: {
        title: 'C revised',
        visibility: false,
        preview: true,
        embedUrl: 'https://player.vimeo.com/video/76979871',
        prerequisiteVideos: [{ _id: b.id, title: 'B' }],
      },
    })
    const shown = await body<{ video: { visibility: boolean } }>(await edit({ ...fields, visibility: 'true' }))
    expect(shown.video.visibility).toBe(true)
  })

  it('keeps a hidden video hidden, and its preview, when the payload leaves them out', async () => {
    const course = await makeCourse({ videos: [{ title: 'Hidden', visibility: false, preview: true }] })
    const [video] = course.videos
    const fields = { title: 'Hidden revised', description: 'D', embedUrl: 'https://vimeo.com/76979871' }
    const response = await send(editVideoRoute, 'PUT', '/x', { courseId: course.id, ...fields }, as.admin.token, {
      videoId: video.id,
    })
    expect(response.status).toBe(200)
    expect(await body(response)).toMatchObject({ video: { title: 'Hidden revised', visibility: false, preview: true } })
  })

  it('refuses a prerequisite on itself or through a cycle, and the old client’s messages for empty fields', async () => {
    const course = await makeCourse({ videos: [{ title: 'A' }, { title: 'B', after: [0] }] })
    const [a, b] = course.videos
    const edit = (videoId: string, json: Record<string, unknown>) =>
      send(editVideoRoute, 'PUT', '/x', { courseId: course.id, ...json }, as.admin.token, { videoId })
    const fields = { title: 'A', description: 'D', embedUrl: 'https://youtu.be/dQw4w9WgXcQ' }
    expect(await body(await edit(a.id, { ...fields, prerequisiteVideos: [a.id] }))).toMatchObject({
      errors: { prerequisiteVideos: 'A video cannot be its own prerequisite.' },
    })
    const cycle = await edit(a.id, { ...fields, prerequisiteVideos: [b.id] })
    expect(cycle.status).toBe(400)
    expect(await body(cycle)).toMatchObject({
      errors: { prerequisiteVideos: expect.stringContaining('require itself') },
    })
    expect(await body(await edit(a.id, {}))).toMatchObject({
      errors: {
        title: 'Video Title is required field.',
        embedUrl: 'Embeded code is required field.',
        description: 'Description is required field.',
      },
    })
    const elsewhere = await makeCourse()
    const wrongCourse = await send(editVideoRoute, 'PUT', '/x', { ...fields, courseId: elsewhere.id }, as.admin.token, {
      videoId: a.id,
    })
    expect(wrongCourse.status).toBe(404)
  })
})

describe('DELETE /api/category/deleteVideo/{courseId}/{videoId}', () => {
  it('deletes a video, drops it from the prerequisites of others, and renumbers the rest', async () => {
    const course = await makeCourse({
      videos: [{ title: 'Basics' }, { title: 'Joins', after: [0] }, { title: 'Grouping', after: [0] }],
    })
    const [basics] = course.videos
    const params = { courseId: course.id, videoId: basics.id }
    await expectAdminsOnly((token) => send(deleteVideoRoute, 'DELETE', '/x', undefined, token, params))
    expect(await videoOrder(course.id)).toHaveLength(3)

    const response = await send(deleteVideoRoute, 'DELETE', '/x', undefined, as.admin.token, params)
    expect(response.status).toBe(200)
    expect(await body(response)).toEqual({
      message: 'Video "Basics" deleted; it is no longer a prerequisite of Joins, Grouping.',
    })
    expect(await videoOrder(course.id)).toEqual([
      ['Joins', 0],
      ['Grouping', 1],
    ])
    const { VideoPrerequisite } = await db()
    expect(await VideoPrerequisite.count({ where: { courseId: course.id } })).toBe(0)
    expect((await send(deleteVideoRoute, 'DELETE', '/x', undefined, as.admin.token, params)).status).toBe(404)
  })
})

describe('PUT /api/category/editVideoOrder', () => {
  it('saves zero-based positions for every video of a course at once', async () => {
    const course = await makeCourse({ videos: [{ title: 'A' }, { title: 'B' }, { title: 'C' }] })
    const [a, b, c] = course.videos
    const order = [
      { _id: c.id, orderId: 0 },
      { _id: a.id, orderId: 1 },
      { _id: b.id, orderId: 2 },
    ]
    await expectAdminsOnly((token) => send(editVideoOrderRoute, 'PUT', '/x', order, token))
    expect(await videoOrder(course.id)).toEqual([
      ['A', 0],
      ['B', 1],
      ['C', 2],
    ])
    const response = await send(editVideoOrderRoute, 'PUT', '/x', order, as.admin.token)
    expect(response.status).toBe(200)
    expect(await body(response)).toEqual({ message: 'The new order is saved.' })
    expect(await videoOrder(course.id)).toEqual([
      ['C', 0],
      ['A', 1],
      ['B', 2],
    ])
  })

  it('changes nothing when the list is partial, repeated, gapped, mixed or malformed', async () => {
    const course = await makeCourse({ videos: [{ title: 'A' }, { title: 'B' }] })
    const other = await makeCourse({ videos: [{ title: 'X' }] })
    const [a, b] = course.videos
    const document = await makeDocument(course.id)
    const attempts: [unknown, RegExp][] = [
      [[{ _id: b.id, orderId: 0 }], /every video/],
      [
        [
          { _id: a.id, orderId: 0 },
          { _id: a.id, orderId: 1 },
        ],
        /only once/,
      ],
      [
        [
          { _id: a.id, orderId: 0 },
          { _id: b.id, orderId: 2 },
        ],
        /no gaps or repeats/,
      ],
      [
        [
          { _id: b.id, orderId: 0 },
          { _id: other.videos[0].id, orderId: 1 },
        ],
        /one course/,
      ],
      [
        [
          { _id: b.id, orderId: 0 },
          { _id: document.id, orderId: 1 },
        ],
        /Only videos/,
      ],
      [{ _id: a.id, orderId: 0 }, /list/],
      [[{ _id: 'nope', orderId: 0 }], /_id/],
    ]
    for (const [json, message] of attempts) {
      const response = await send(editVideoOrderRoute, 'PUT', '/x', json, as.admin.token)
      expect(response.status, JSON.stringify(json)).toBe(400)
      expect((await body<{ message: string }>(response)).message).toMatch(message)
    }
    const malformed = await call(editVideoOrderRoute.action as never, '/x', {
      method: 'PUT',
      headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${as.admin.token}` },
      body: '[{"_id": ',
    })
    expect(malformed.status).toBe(400)
    expect(await videoOrder(course.id)).toEqual([
      ['A', 0],
      ['B', 1],
    ])
  })
})

describe('documents and scenarios', () => {
  it('POST addDocument adds a document or a scenario at the end of its own list', async () => {
    const course = await makeCourse()
    await makeDocument(course.id, { orderId: 0 })
    const file = await makeStoredFile('document', { name: 'Star schema.pdf' })
    const payload = { documentType: 'Scenarios', courseId: course.id, document: file }
    await expectAdminsOnly((token) => send(addDocumentRoute, 'POST', '/x', payload, token))
    const response = await send(addDocumentRoute, 'POST', '/x', payload, as.admin.token)
    expect(response.status).toBe(200)
    expect(await body(response)).toMatchObject({
      message: 'Scenario added.',
      document: { courseId: course.id, documentType: 'Scenarios', orderId: 0, visibility: true, document: file },
    })
    // sent twice (a double click, a retry): still one scenario
    const twice = await send(addDocumentRoute, 'POST', '/x', payload, as.admin.token)
    expect(await body(twice)).toMatchObject({ document: { documentType: 'Scenarios', orderId: 0 } })
    const { ContentEntry } = await db()
    expect(await ContentEntry.count({ where: { courseId: course.id, kind: 'scenario' } })).toBe(1)
    // the same file in the other list is a different request: refused, the file is taken
    const again = await send(addDocumentRoute, 'POST', '/x', { ...payload, documentType: 'Document' }, as.admin.token)
    expect(again.status).toBe(409)
  })

  it('POST addDocument answers the old client’s messages and refuses files that are not course documents', async () => {
    const empty = await send(addDocumentRoute, 'POST', '/x', {}, as.admin.token)
    expect(await body(empty)).toMatchObject({
      errors: { courseId: 'Please select a course', document: 'Please Upload a document' },
    })
    const course = await makeCourse()
    const assessment = await makeStoredFile('assessment', { uploadedBy: as.learner.id })
    const refused = await send(
      addDocumentRoute,
      'POST',
      '/x',
      { courseId: course.id, document: assessment },
      as.admin.token,
    )
    expect(refused.status).toBe(400)
    const wrongType = await send(
      addDocumentRoute,
      'POST',
      '/x',
      { courseId: course.id, documentType: 'Slides', document: await makeStoredFile() },
      as.admin.token,
    )
    expect(await body(wrongType)).toMatchObject({
      errors: { documentType: 'Document type must be Document or Scenarios.' },
    })
  })

  it('PUT editDocumentOrder/{id} changes visibility and order, and replaces the file deleting the old one', async () => {
    const course = await makeCourse()
    const document = await makeDocument(course.id, { name: 'v1.pdf' })
    const replacement = await makeStoredFile('document', { name: 'v2.pdf' })
    const edit = (json: Record<string, unknown>, token = as.admin.token) =>
      send(editDocumentRoute, 'PUT', '/x', { courseId: course.id, ...json }, token, { documentId: document.id })
    await expectAdminsOnly((token) =>
      send(editDocumentRoute, 'PUT', '/x', { courseId: course.id, orderId: 3 }, token, { documentId: document.id }),
    )
    // the old client's payload carries no orderId: the document keeps its place
    const second = await makeDocument(course.id, { name: 'second.pdf', orderId: 1 })
    const kept = await edit({ visibility: true }, as.admin.token)
    expect(kept.status).toBe(200)
    expect(await body(kept)).toMatchObject({ document: { orderId: 0 } })
    expect((await (await db()).ContentEntry.findByPk(second.id))?.orderId).toBe(1)
    await (await db()).ContentEntry.destroy({ where: { id: second.id } })
    expect(await body(await edit({ orderId: 'first' }))).toMatchObject({
      errors: { orderId: 'Order Id must be a whole number.' },
    })

    // an orderId is a place in the list: past the end means last (here, the only place: 0)
    const response = await edit({ orderId: 3, visibility: false, document: replacement })
    expect(response.status).toBe(200)
    expect(await body(response)).toMatchObject({
      message: 'Document updated.',
      document: { orderId: 0, visibility: false, document: replacement },
    })
    expect(await fileGone(document.fileKey)).toBe(true)

    const slides = await makeStoredFile('document', {
      name: 'deck.pptx',
      contentType: 'application/vnd.openxmlformats-officedocument.presentationml.presentation',
    })
    const refused = await edit({ orderId: 0, document: slides })
    expect(refused.status).toBe(415)
    expect(await body(refused)).toMatchObject({
      message: 'Only csv, pdf and docx files are accepted.',
      errors: { document: 'Only csv, pdf and docx files are accepted.' },
    })
  })

  it('PUT editDocumentOrder/{id} keeps a hidden document hidden when the payload leaves visibility out', async () => {
    const course = await makeCourse()
    const document = await makeDocument(course.id, { visibility: false })
    const response = await send(editDocumentRoute, 'PUT', '/x', { courseId: course.id, orderId: 0 }, as.admin.token, {
      documentId: document.id,
    })
    expect(response.status).toBe(200)
    expect(await body(response)).toMatchObject({ document: { visibility: false } })
  })

  it('PUT editDocumentOrder saves the order of one list and refuses mixing documents and scenarios', async () => {
    const course = await makeCourse()
    const first = await makeDocument(course.id, { orderId: 0, name: 'first.pdf' })
    const second = await makeDocument(course.id, { orderId: 1, name: 'second.pdf' })
    const scenario = await makeDocument(course.id, { kind: 'scenario' })
    const order = [
      { _id: second.id, orderId: 0 },
      { _id: first.id, orderId: 1 },
    ]
    await expectAdminsOnly((token) => send(editDocumentListRoute, 'PUT', '/x', order, token))
    expect((await send(editDocumentListRoute, 'PUT', '/x', order, as.admin.token)).status).toBe(200)
    const documents = await body<{ data: { document: { name: string }; orderId: number }[] }>(
      await get(getDocumentsRoute, '/x', as.admin.token, { courseId: course.id }),
    )
    expect(documents.data.map((d) => [d.document.name, d.orderId]).slice(0, 2)).toEqual([
      ['second.pdf', 0],
      ['first.pdf', 1],
    ])
    const mixed = [
      { _id: first.id, orderId: 0 },
      { _id: scenario.id, orderId: 1 },
    ]
    expect((await send(editDocumentListRoute, 'PUT', '/x', mixed, as.admin.token)).status).toBe(400)
  })

  it('DELETE deleteDocument removes the entry and its file, but keeps a scenario with submitted work', async () => {
    const course = await makeCourse()
    const document = await makeDocument(course.id)
    const params = { courseId: course.id, documentId: document.id }
    await expectAdminsOnly((token) => send(deleteDocumentRoute, 'DELETE', '/x', undefined, token, params))
    const response = await send(deleteDocumentRoute, 'DELETE', '/x', undefined, as.admin.token, params)
    expect(await body(response)).toEqual({ message: 'Document deleted.' })
    expect(await fileGone(document.fileKey)).toBe(true)
    expect((await send(deleteDocumentRoute, 'DELETE', '/x', undefined, as.admin.token, params)).status).toBe(404)

    const scenario = await makeDocument(course.id, { kind: 'scenario' })
    const learner = await makeLearner()
    const work = await makeStoredFile('assessment', { uploadedBy: learner.id })
    const { AssessmentUpload } = await db()
    await AssessmentUpload.create({
      userId: learner.id,
      courseId: course.id,
      scenarioId: scenario.id,
      fileKey: work.key,
    })
    const kept = await send(deleteDocumentRoute, 'DELETE', '/x', undefined, as.admin.token, {
      courseId: course.id,
      documentId: scenario.id,
    })
    expect(kept.status).toBe(409)
    expect(await fileGone(scenario.fileKey)).toBe(false)
  })
})

describe('programs', () => {
  it('POST createProgram makes a program of ordered courses; getPrograms lists it to everyone signed in', async () => {
    const [first, second] = [await makeCourse({ title: 'P1' }), await makeCourse({ title: 'P2' })]
    const payload = {
      name: 'Analytics Path',
      path: 'analytics',
      learningPath: 'Modelling then warehousing',
      duration: '6 weeks',
      description: 'Two courses.',
      price: '199.50',
      relatedCourse: [second.id, first.id],
      programImage: await makeStoredFile('course_image'),
    }
    await expectAdminsOnly((token) => send(createProgramRoute, 'POST', '/x', payload, token))
    const response = await send(createProgramRoute, 'POST', '/x', payload, as.admin.token)
    expect(response.status).toBe(200)
    expect(await body(response)).toMatchObject({
      message: 'Program created.',
      program: {
        title: 'Analytics Path',
        price: 199.5,
        courses: [
          { _id: second.id, title: 'P2' },
          { _id: first.id, title: 'P1' },
        ],
      },
    })
    for (const role of ['learner', 'coach'] as const) {
      const list = await body<{ data: { title: string }[] }>(await get(getProgramsRoute, '/x', as[role].token))
      expect(list.data.map((p) => p.title)).toContain('Analytics Path')
    }
    expect((await get(getProgramsRoute, '/x')).status).toBe(401)

    // an image is refused under the field it came in
    const document = await makeStoredFile('document')
    const refused = await send(createProgramRoute, 'POST', '/x', { ...payload, programImage: document }, as.admin.token)
    expect(refused.status).toBe(400)
    expect(await body(refused)).toMatchObject({ errors: { programImage: 'Please Upload the Image.' } })
  })

  it('getPrograms gives every program by name, or one page of it with ?page=&size=', async () => {
    const course = await makeCourse()
    for (const name of ['Paged Program C', 'paged program a', 'Paged Program B']) {
      const payload = {
        name,
        path: 'paged',
        learningPath: 'One course',
        duration: '1 week',
        description: 'Paged.',
        price: '10',
        relatedCourse: [course.id],
      }
      expect((await send(createProgramRoute, 'POST', '/x', payload, as.admin.token)).status).toBe(200)
    }
    const whole = await body<{ data: { title: string }[] }>(await get(getProgramsRoute, '/x', as.learner.token))
    expect(whole).not.toHaveProperty('total')
    const titles = whole.data.map((p) => p.title)
    expect(titles.filter((t) => /paged program/i.test(t))).toEqual([
      'paged program a',
      'Paged Program B',
      'Paged Program C',
    ])
    const paged = await body<{ data: { title: string }[]; total: number; page: number; size: number }>(
      await get(getProgramsRoute, '/x?page=2&size=2', as.learner.token),
    )
    expect(paged).toMatchObject({ total: titles.length, page: 2, size: 2 })
    expect(paged.data.map((p) => p.title)).toEqual(titles.slice(2, 4))
    expect((await get(getProgramsRoute, '/x?page=1&size=0', as.learner.token)).status).toBe(400)
  })

  it('POST createProgram answers each missing field', async () => {
    const response = await send(createProgramRoute, 'POST', '/x', {}, as.admin.token)
    expect(response.status).toBe(400)
    expect(await body(response)).toMatchObject({
      errors: {
        title: 'Program Name is required field.',
        path: 'Program Path is required field.',
        learningPath: 'Program Learning Path is required field.',
        duration: 'Program Duration is required field.',
        description: 'Program Description is required field.',
        price: 'Price is required field.',
        courses: 'Please select a course.',
      },
    })
  })
})

describe('POST /api/category/addCourseImage and addCourseDocument', () => {
  const upload = (route: { action: unknown }, field: string, file: File, token?: string) => {
    const form = new FormData()
    form.append(field, file)
    return call(route.action as never, '/x', { method: 'POST', body: form, token })
  }
  const png = () => new File([new Uint8Array(pngBytes())], 'cover.png', { type: 'image/png' })

  it('take an image under courseImage or courseDocument, from admins only', async () => {
    await expectAdminsOnly((token) => upload(addCourseImageRoute, 'courseImage', png(), token))
    for (const field of ['courseImage', 'courseDocument']) {
      const response = await upload(addCourseImageRoute, field, png(), as.admin.token)
      expect(response.status).toBe(200)
      const { fileInfo } = await body<{ fileInfo: { key: string; link: string; name: string } }>(response)
      expect(fileInfo).toMatchObject({ name: 'cover.png', link: `/files/${fileInfo.key}` })
      const { StoredFile } = await db()
      expect((await StoredFile.findByPk(fileInfo.key))?.purpose).toBe('course_image')
    }
    const refused = await upload(
      addCourseImageRoute,
      'courseImage',
      new File([new Uint8Array(await pdfBytes())], 'cover.png'),
      as.admin.token,
    )
    expect(refused.status).toBe(415)
    expect(await body(refused)).toMatchObject({ message: 'Only png, gif and jpeg images are accepted.' })
  })

  it('keep an admin’s document as a course document and a learner’s as a private assessment', async () => {
    const pdf = async () => new File([new Uint8Array(await pdfBytes())], 'answer.pdf', { type: 'application/pdf' })
    expect((await upload(addCourseDocumentRoute, 'courseDocument', await pdf())).status).toBe(401)
    expect((await upload(addCourseDocumentRoute, 'courseDocument', await pdf(), as.coach.token)).status).toBe(403)
    const { StoredFile } = await db()
    for (const [role, purpose] of [
      ['admin', 'document'],
      ['learner', 'assessment'],
    ] as const) {
      const response = await upload(addCourseDocumentRoute, 'courseDocument', await pdf(), as[role].token)
      expect(response.status).toBe(200)
      const { fileInfo } = await body<{ fileInfo: { key: string } }>(response)
      const stored = await StoredFile.findByPk(fileInfo.key)
      expect(stored).toMatchObject({ purpose, uploadedBy: as[role].id })
    }
    const missing = await call(addCourseDocumentRoute.action as never, '/x', {
      method: 'POST',
      body: new FormData(),
      token: as.admin.token,
    })
    expect(missing.status).toBe(400)
    expect(await body(missing)).toMatchObject({ errors: { courseDocument: 'Please Upload a document' } })
  })
})

describe('the super admin', () => {
  it('may make every change an admin may', async () => {
    const token = as.superAdmin.token
    const ok = async (response: Promise<Response>) => {
      const answer = await response
      expect(answer.status, await answer.clone().text()).toBe(200)
      return body<unknown>(answer)
    }
    const image = (await ok(
      (() => {
        const form = new FormData()
        form.append('courseImage', new File([new Uint8Array(pngBytes())], 'c.png', { type: 'image/png' }))
        return call(addCourseImageRoute.action as never, '/x', { method: 'POST', body: form, token })
      })(),
    )) as { fileInfo: { key: string } }
    const { course } = (await ok(
      send(createCourseRoute, 'POST', '/x', { title: 'Super', description: 'D', courseImage: image.fileInfo }, token),
    )) as { course: { _id: string } }
    const courseId = course._id
    await ok(
      send(
        editCourseRoute,
        'PUT',
        '/x',
        { courseId, title: 'Super 2', description: 'D', courseImage: image.fileInfo },
        token,
      ),
    )
    const video = { title: 'V', description: 'D', embedUrl: 'https://youtu.be/dQw4w9WgXcQ' }
    const first = (await ok(send(courseVideoRoute, 'PUT', '/x', video, token, { relatedCourseId: courseId }))) as {
      video: { _id: string }
    }
    const second = (await ok(send(courseVideoRoute, 'PUT', '/x', video, token, { relatedCourseId: courseId }))) as {
      video: { _id: string }
    }
    await ok(
      send(editVideoRoute, 'PUT', '/x', { ...video, courseId, visibility: false }, token, { videoId: first.video._id }),
    )
    await ok(
      send(
        editVideoOrderRoute,
        'PUT',
        '/x',
        [
          { _id: second.video._id, orderId: 0 },
          { _id: first.video._id, orderId: 1 },
        ],
        token,
      ),
    )
    const upload = new FormData()
    upload.append('courseDocument', new File([new Uint8Array(await pdfBytes())], 'd.pdf', { type: 'application/pdf' }))
    const file = (await ok(
      call(addCourseDocumentRoute.action as never, '/x', { method: 'POST', body: upload, token }),
    )) as {
      fileInfo: { key: string }
    }
    const { document } = (await ok(
      send(addDocumentRoute, 'POST', '/x', { courseId, documentType: 'Document', document: file.fileInfo }, token),
    )) as { document: { _id: string } }
    await ok(send(editDocumentListRoute, 'PUT', '/x', [{ _id: document._id, orderId: 0 }], token))
    await ok(
      send(editDocumentRoute, 'PUT', '/x', { courseId, orderId: 0, visibility: false }, token, {
        documentId: document._id,
      }),
    )
    await ok(send(deleteDocumentRoute, 'DELETE', '/x', undefined, token, { courseId, documentId: document._id }))
    await ok(send(deleteVideoRoute, 'DELETE', '/x', undefined, token, { courseId, videoId: first.video._id }))
    const program = {
      name: 'S',
      path: 'p',
      learningPath: 'l',
      duration: '1w',
      description: 'd',
      price: 0,
      courses: [courseId],
    }
    await ok(send(createProgramRoute, 'POST', '/x', program, token))
  })
})

describe('hardening', () => {
  it('moves a video to the orderId given, keeping the list 0, 1, 2 … without repeats', async () => {
    const course = await makeCourse({ videos: [{ title: 'A' }, { title: 'B' }, { title: 'C' }] })
    const c = course.videos[2]
    const fields = { courseId: course.id, title: 'C', description: 'D', embedUrl: 'https://youtu.be/dQw4w9WgXcQ' }
    expect(
      (await send(editVideoRoute, 'PUT', '/x', { ...fields, orderId: 0 }, as.admin.token, { videoId: c.id })).status,
    ).toBe(200)
    expect(await videoOrder(course.id)).toEqual([
      ['C', 0],
      ['A', 1],
      ['B', 2],
    ])
    const huge = await send(editVideoRoute, 'PUT', '/x', { ...fields, orderId: 3_000_000_000 }, as.admin.token, {
      videoId: c.id,
    })
    expect(huge.status).toBe(400)
    const hex = await send(editVideoRoute, 'PUT', '/x', { ...fields, orderId: '0x10' }, as.admin.token, {
      videoId: c.id,
    })
    expect(hex.status).toBe(400)
  })

  it('answers 400, not 500, to an orderId that is an object, a list or a boolean, and changes nothing', async () => {
    const course = await makeCourse({ videos: [{ title: 'A' }, { title: 'B' }] })
    const document = await makeDocument(course.id)
    const video = { courseId: course.id, title: 'B', description: 'D', embedUrl: 'https://youtu.be/dQw4w9WgXcQ' }
    // an object whose toString is not a function: String() and Number() throw on it
    for (const orderId of [{ toString: 1 }, [0], true]) {
      const edits = [
        await send(editVideoRoute, 'PUT', '/x', { ...video, orderId }, as.admin.token, {
          videoId: course.videos[1].id,
        }),
        await send(editDocumentRoute, 'PUT', '/x', { courseId: course.id, orderId }, as.admin.token, {
          documentId: document.id,
        }),
      ]
      for (const edited of edits) {
        expect(edited.status, JSON.stringify(orderId)).toBe(400)
        expect(await body(edited)).toMatchObject({ errors: { orderId: 'Order Id must be a whole number.' } })
      }
    }
    expect(await videoOrder(course.id)).toEqual([
      ['A', 0],
      ['B', 1],
    ])
  })

  it('refuses a NUL character anywhere in a JSON body, naming the field, and stores nothing', async () => {
    const { Course } = await db()
    const before = await Course.count()
    const image = await makeStoredFile('course_image')
    const NUL = 'Text cannot contain NUL characters.'
    const course = { title: 'Joins', description: 'Inner\u0000and outer', courseImage: image.key }
    const refused = await send(createCourseRoute, 'POST', '/api/category/course', course, as.admin.token)
    expect(refused.status).toBe(400)
    expect(await body(refused)).toEqual({ message: NUL, errors: { description: NUL } })
    const inList = await send(createProgramRoute, 'POST', '/x', { courses: ['a', '\u0000'] }, as.admin.token)
    expect(await body(inList)).toMatchObject({ errors: { 'courses.1': NUL } })
    // a backslash followed by u0000 is only text
    const text = await send(
      createCourseRoute,
      'POST',
      '/api/category/course',
      { ...course, description: 'Write \\u0000 in JSON' },
      as.admin.token,
    )
    expect(text.status).toBe(200)
    expect(await Course.count()).toBe(before + 1)
  })

  it('refuses a learner before reading the body, and refuses JSON bodies over 1 MB', async () => {
    const refused = await send(editVideoRoute, 'PUT', '/x', {}, as.learner.token, { videoId: 'x' })
    expect(refused.status).toBe(403)
    const big = await call(editVideoOrderRoute.action as never, '/x', {
      method: 'PUT',
      token: as.admin.token,
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(
        Array.from({ length: 40_000 }, () => ({ _id: '00000000-0000-4000-8000-000000000000', orderId: 0 })),
      ),
    })
    expect(big.status).toBe(413)
  })

  it('refuses a cookie-authenticated write from another site', async () => {
    const { action: signIn } = await import('#app/routes/_auth+/sign-in.tsx')
    const learner = await makeLearner()
    const signed = await call(signIn, '/sign-in', {
      method: 'POST',
      body: new URLSearchParams({ email: learner.userName, password: 'Test-pass1!' }),
    })
    const cookie = signed.headers.get('Set-Cookie')?.split(';')[0] ?? ''
    const attempt = (headers: Record<string, string>) =>
      call(addDocumentRoute.action as never, '/x', {
        method: 'POST',
        headers: { Cookie: cookie, 'Content-Type': 'application/json', ...headers },
        body: '{}',
      })
    expect((await attempt({ 'Sec-Fetch-Site': 'cross-site' })).status).toBe(403)
    expect((await attempt({ Origin: 'https://evil.example' })).status).toBe(403)
    // the same request from the site itself reaches the permission check (a learner: 403 for another reason)
    expect(await body(await attempt({ 'Sec-Fetch-Site': 'same-origin' }))).toEqual({
      message: 'Only admins can change courses and their contents.',
    })
  })

  it('answers 400, not 500, to out-of-range paging', async () => {
    for (const query of ['page=1e20&size=5', 'page=1&size=0x10', 'page=-1&size=7'])
      expect((await get(coursesRoute, `/api/category/courses?${query}`, as.admin.token)).status, query).toBe(400)
  })

  it('refuses a NUL character in ?q= with the one NUL message, paged and whole', async () => {
    for (const query of ['q=Nulls%00', 'q=Nulls%00&page=1&size=10']) {
      const response = await get(coursesRoute, `/api/category/courses?${query}`, as.admin.token)
      expect(response.status, query).toBe(400)
      expect(await body(response)).toMatchObject({ message: 'Text cannot contain NUL characters.' })
    }
  })

  it('does not tell a learner about hidden prerequisites', async () => {
    const learner = await makeLearner()
    const course = await makeCourse({
      videos: [
        { title: 'Secret', visibility: false },
        { title: 'Open', after: [0] },
      ],
    })
    await assignCourse(learner.id, course.id)
    type Detail = { message: { videos: { title: string; prerequisiteVideos: unknown[] }[] } }
    const seen = await body<Detail>(await get(courseRoute, '/x', learner.token, { courseId: course.id }))
    expect(seen.message.videos).toEqual([expect.objectContaining({ title: 'Open', prerequisiteVideos: [] })])
    const admin = await body<Detail>(await get(courseRoute, '/x', as.admin.token, { courseId: course.id }))
    expect(admin.message.videos[1].prerequisiteVideos).toHaveLength(1)
  })
})
