import { beforeAll, describe, expect, it } from 'vitest'
import * as contactPage from '#app/routes/_public+/contact-Us.tsx'
import * as newCourse from '#app/routes/admin+/newCourse.tsx'
import * as createCourseRoute from '#app/routes/api+/category.course.ts'
import * as courseRoute from '#app/routes/api+/category.course_.$courseId.ts'
import * as coursesRoute from '#app/routes/api+/category.courses.ts'
import { db } from '#db/client.ts'
import { makeAdmin, makeStoredFile } from '#tests/factories.ts'
import { pngBytes } from '#tests/fixtures/files.ts'
import { call } from '#tests/requests.ts'
import { sessionCookieFor } from '#tests/sessions.ts'

// NUL (U+0000) in any text a client sends is refused with one clear message: PostgreSQL's text and
// jsonb cannot hold it (Sequelize quietly stored a backslash and a zero instead, and a bound
// parameter fails the query), and no field of the portal needs it.

const NUL_MESSAGE = 'Text cannot contain NUL characters.'

let admin: Awaited<ReturnType<typeof makeAdmin>>
let adminCookie: string
let courseImage: string

beforeAll(async () => {
  admin = await makeAdmin()
  adminCookie = await sessionCookieFor(admin.userName)
  courseImage = (await makeStoredFile('course_image', { uploadedBy: admin.id })).key
})

const courseCount = async () => (await db()).Course.count()

describe('/api', () => {
  it('a JSON body with NUL in a field is a 400 naming the field, and nothing is stored', async () => {
    const before = await courseCount()
    const response = await call(createCourseRoute.action as never, '/api/category/course', {
      method: 'POST',
      token: admin.token,
      json: { title: 'Star schemas', description: 'Facts\u0000 and dimensions', courseImage },
    })
    expect(response.status).toBe(400)
    expect(await response.json()).toEqual({ message: NUL_MESSAGE, errors: { description: NUL_MESSAGE } })
    expect(await courseCount()).toBe(before)
  })

  it('however deep, in a key as well as in a value', async () => {
    for (const [json, field] of [
      [{ title: 'x', tags: ['ok', 'bad\u0000'] }, 'tags.1'],
      [{ title: 'x', extra: { 'key\u0000': 1 } }, 'extra'],
    ] as const) {
      const response = await call(createCourseRoute.action as never, '/api/category/course', {
        method: 'POST',
        token: admin.token,
        json,
      })
      expect(response.status).toBe(400)
      expect(await response.json()).toEqual({ message: NUL_MESSAGE, errors: { [field]: NUL_MESSAGE } })
    }
  })

  it('in a query or a path: a 400', async () => {
    const search = await call(coursesRoute.loader as never, '/api/category/courses?q=a%00b', { token: admin.token })
    expect(search.status).toBe(400)
    expect(await search.json()).toEqual({ message: NUL_MESSAGE })
    const path = await call(courseRoute.loader as never, '/api/category/course/%00', {
      token: admin.token,
      params: { courseId: '\u0000' },
    })
    expect(path.status).toBe(400)
    expect(await path.json()).toEqual({ message: NUL_MESSAGE })
  })
})

describe('pages', () => {
  it('a multipart form: the message beside the field, what was typed kept, no file left', async () => {
    const form = new FormData()
    form.append('title', 'Star\u0000 schemas')
    form.append('description', 'Facts and dimensions')
    form.append('courseImage', new File([new Uint8Array(pngBytes())], 'cover.png', { type: 'image/png' }))
    const { StoredFile } = await db()
    const [courses, files] = [await courseCount(), await StoredFile.count()]
    const response = await call(newCourse.action as never, '/admin/newCourse', {
      method: 'POST',
      headers: { Cookie: adminCookie },
      body: form,
    })
    expect(response.status).toBe(400)
    const { result } = (await response.json()) as {
      result: { error: Record<string, string[]>; initialValue: Record<string, string> }
    }
    expect(result.error.title).toEqual([NUL_MESSAGE])
    expect(result.initialValue.description).toBe('Facts and dimensions')
    expect([await courseCount(), await StoredFile.count()]).toEqual([courses, files])
  })

  it('a plain form: a 400 that says why', async () => {
    const response = await call(contactPage.action as never, '/contact-Us', {
      method: 'POST',
      body: new URLSearchParams({
        name: 'Visitor',
        email: 'visitor@example.com',
        subject: 'Hello',
        message: 'A question\u0000.',
      }),
    })
    expect(response.status).toBe(400)
    expect(await response.json()).toEqual({ message: NUL_MESSAGE })
  })
})
