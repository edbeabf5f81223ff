import { beforeEach, describe, expect, it } from 'vitest'
import { listAssignedCourses } from '#app/modules/courses/learner.server.ts'
import { storage } from '#app/modules/files/storage.server.ts'
import { deleteProgram, editProgram, getProgram, reorderProgram } from '#app/modules/programs/service.server.ts'
import * as deleteProgramRoute from '#app/routes/api+/program.deleteProgram.$programId.ts'
import * as editProgramRoute from '#app/routes/api+/program.editProgram.$programId.ts'
import * as editProgramOrderRoute from '#app/routes/api+/program.editProgramOrder.$programId.ts'
import * as getProgramRoute from '#app/routes/api+/program.getProgram.$programId.ts'
import { db, query, sql } from '#db/client.ts'
import {
  assignCourse,
  assignProgram,
  makeAdmin,
  makeCoach,
  makeCourse,
  makeLearner,
  makeProgram,
  makeStoredFile,
  recordWatched,
} from '#tests/factories.ts'
import { body, call } from '#tests/requests.ts'

// Managing a program after it is made: read it with its learners, edit it, reorder its courses and
// delete it, through the service and the /api, for every role.

type User = Awaited<ReturnType<typeof makeAdmin>>
let admin: User
let coach: User
let learner: User
let other: User
let first: Awaited<ReturnType<typeof makeCourse>>
let second: Awaited<ReturnType<typeof makeCourse>>
let third: Awaited<ReturnType<typeof makeCourse>>
let program: { id: string }
let image: { key: string }

beforeEach(async () => {
  ;[admin, coach, learner, other] = await Promise.all([makeAdmin(), makeCoach(), makeLearner(), makeLearner()])
  first = await makeCourse({ title: 'Programs First', videos: [{ duration: 100 }] })
  second = await makeCourse({ title: 'Programs Second', videos: [{ duration: 100 }] })
  third = await makeCourse({ title: 'Programs Third' })
  program = await makeProgram([first.id, second.id])
  image = await makeStoredFile('program_image', { uploadedBy: admin.id })
  const { Program } = await db()
  await Program.update(
    { imageKey: image.key, description: 'Two courses.', path: 'p', learningPath: 'lp', duration: '2 weeks' },
    { where: { id: program.id } },
  )
})

const get = (id: string, token?: string) =>
  call(getProgramRoute.loader, `/api/program/getProgram/${id}`, { token, params: { programId: id } })
const edit = (id: string, json: unknown, token?: string) =>
  call(editProgramRoute.action, `/api/program/editProgram/${id}`, {
    method: 'PUT',
    json,
    token,
    params: { programId: id },
  })
const reorder = (id: string, json: unknown, token?: string) =>
  call(editProgramOrderRoute.action, `/api/program/editProgramOrder/${id}`, {
    method: 'PUT',
    json,
    token,
    params: { programId: id },
  })
const remove = (id: string, token?: string, query = '') =>
  call(deleteProgramRoute.action, `/api/program/deleteProgram/${id}${query}`, {
    method: 'DELETE',
    token,
    params: { programId: id },
  })

const fields = (overrides: Record<string, unknown> = {}) => ({
  title: 'Renamed Program',
  path: 'data',
  learningPath: 'From SQL up',
  duration: '6 weeks',
  description: 'Edited.',
  price: '120.5',
  courses: [third.id, first.id],
  ...overrides,
})

async function fileGone(key: string) {
  const { StoredFile } = await db()
  return (await StoredFile.findByPk(key)) === null && (await storage().get(key)) === undefined
}

const TALLY = sql(`SELECT assigned FROM course_completion_tallies WHERE user_id = :userId AND course_id = :courseId`)
const tally = async (userId: string, courseId: string) =>
  (await query<{ assigned: boolean }>(TALLY, { userId, courseId }))[0]?.assigned

describe('GET /api/program/getProgram/{programId}', () => {
  it('answers the admin side with the courses in order and the learners assigned', async () => {
    await assignProgram(learner.id, program.id)
    for (const caller of [admin, coach]) {
      const response = await get(program.id, caller.token)
      expect(response.status).toBe(200)
      const { data } = await body<{ data: Awaited<ReturnType<typeof getProgram>> }>(response)
      expect(data.courses.map((c) => c.title)).toEqual(['Programs First', 'Programs Second'])
      expect(data.learners.map((l) => l._id)).toEqual([learner.id])
      expect(data.programImage?.key).toBe(image.key)
    }
  })

  it('refuses a learner (403) and answers an unknown id with 404, as JSON with a message', async () => {
    const refused = await get(program.id, learner.token)
    expect(refused.status).toBe(403)
    expect(await body(refused)).toEqual({ message: expect.any(String) })
    for (const id of ['00000000-0000-4000-8000-000000000000', 'not-an-id']) {
      const missing = await get(id, admin.token)
      expect(missing.status).toBe(404)
      expect(await body(missing)).toEqual({ message: 'Program not found.' })
    }
  })
})

describe('PUT /api/program/editProgram/{programId}', () => {
  it('changes the fields and the courses in the order given, and keeps the image when none is sent', async () => {
    const response = await edit(program.id, fields(), admin.token)
    expect(response.status).toBe(200)
    const { message, program: edited } = await body<{ message: string; program: Record<string, unknown> }>(response)
    expect(message).toBe('Program updated.')
    expect(edited).toMatchObject({
      title: 'Renamed Program',
      price: 120.5,
      duration: '6 weeks',
      courses: [
        { _id: third.id, title: 'Programs Third' },
        { _id: first.id, title: 'Programs First' },
      ],
      programImage: { key: image.key },
    })
    expect(await fileGone(image.key)).toBe(false)
  })

  it('says what is wrong with each field, in the new form’s words, and changes nothing', async () => {
    const cases: [Record<string, unknown>, string, string][] = [
      [{ title: ' ' }, 'title', 'Program Name is required field.'],
      [{ price: '' }, 'price', 'Price is required field.'],
      [{ price: '-1' }, 'price', 'Price cannot be negative.'],
      [{ courses: [] }, 'courses', 'Please select a course.'],
      [{ courses: [first.id, first.id] }, 'courses', 'Each course can be in the program once.'],
      [{ description: '' }, 'description', 'Program Description is required field.'],
      [{ programImage: 'no-such-file' }, 'programImage', 'Please Upload the Image.'],
    ]
    for (const [overrides, field, text] of cases) {
      const response = await edit(program.id, fields(overrides), admin.token)
      expect(response.status, text).toBe(400)
      expect((await body<{ errors: Record<string, string> }>(response)).errors[field]).toBe(text)
    }
    const unchanged = await getProgram(admin, program.id)
    expect(unchanged.title).not.toBe('Renamed Program')
    expect(unchanged.courses.map((c) => c._id)).toEqual([first.id, second.id])
  })

  it('replaces the image with a new one and deletes the old file', async () => {
    const next = await makeStoredFile('course_image', { uploadedBy: admin.id })
    const response = await edit(program.id, fields({ programImage: next.key }), admin.token)
    expect(response.status).toBe(200)
    expect((await getProgram(admin, program.id)).programImage?.key).toBe(next.key)
    expect(await fileGone(image.key)).toBe(true)
  })

  it('refuses a coach and a learner (403) in the service too, and an unknown program with 404', async () => {
    for (const caller of [coach, learner]) {
      const response = await edit(program.id, fields(), caller.token)
      expect(response.status).toBe(403)
      expect(await body(response)).toEqual({ message: expect.any(String) })
      await expect(editProgram(caller, { ...fields(), programId: program.id })).rejects.toMatchObject({ status: 403 })
    }
    const missing = await edit('00000000-0000-4000-8000-000000000000', fields(), admin.token)
    expect(missing.status).toBe(404)
    expect((await getProgram(admin, program.id)).title).not.toBe('Renamed Program')
  })
})

describe('PUT /api/program/editProgramOrder/{programId}', () => {
  it('puts every course of the program in its new place', async () => {
    const response = await reorder(
      program.id,
      [
        { _id: first.id, orderId: 1 },
        { _id: second.id, orderId: 0 },
      ],
      admin.token,
    )
    expect(response.status).toBe(200)
    expect((await getProgram(admin, program.id)).courses.map((c) => c._id)).toEqual([second.id, first.id])
  })

  it('refuses an order that is not every course of the program once, and a coach', async () => {
    const every = 'Send every course of the program in the new order, each once.'
    for (const [order, message] of [
      [[{ _id: first.id, orderId: 0 }], every],
      [
        [
          { _id: first.id, orderId: 0 },
          { _id: third.id, orderId: 1 },
        ],
        every,
      ],
      [
        [
          { _id: first.id, orderId: 0 },
          { _id: second.id, orderId: 2 },
        ],
        'The orderIds must be 0, 1, 2 … with no gaps or repeats.',
      ],
      [
        [
          { _id: first.id, orderId: 0 },
          { _id: first.id, orderId: 1 },
        ],
        'Each course may appear only once in the new order.',
      ],
    ] as const) {
      const response = await reorder(program.id, order, admin.token)
      expect(response.status).toBe(400)
      expect(await body(response)).toEqual({ message })
    }
    expect((await getProgram(admin, program.id)).courses.map((c) => c._id)).toEqual([first.id, second.id])
    const order = [
      { _id: second.id, orderId: 0 },
      { _id: first.id, orderId: 1 },
    ]
    expect((await reorder(program.id, order, coach.token)).status).toBe(403)
    await expect(reorderProgram(coach, { programId: program.id, courses: order })).rejects.toMatchObject({
      status: 403,
    })
    expect((await getProgram(admin, program.id)).courses.map((c) => c._id)).toEqual([first.id, second.id])
  })
})

describe('DELETE /api/program/deleteProgram/{programId}', () => {
  it('is refused with 409 while learners are assigned, and changes nothing', async () => {
    await assignProgram(learner.id, program.id)
    await assignProgram(other.id, program.id)
    for (const query of ['', '?confirmUnassign=false']) {
      const response = await remove(program.id, admin.token, query)
      expect(response.status).toBe(409)
      expect(await body(response)).toEqual({
        message:
          'This program is assigned to 2 learners. Unassign them to delete it, or confirm that they are unassigned with it.',
      })
    }
    const kept = await getProgram(admin, program.id)
    expect(kept.learners).toHaveLength(2)
    expect(kept.courses).toHaveLength(2)
    expect(await fileGone(image.key)).toBe(false)
  })

  it('with confirmUnassign, unassigns the learners, who keep the courses they have directly, with their progress', async () => {
    await assignCourse(learner.id, first.id)
    await assignProgram(learner.id, program.id)
    await recordWatched(learner.id, first.id, first.videos[0], 50)
    await recordWatched(learner.id, second.id, second.videos[0], 30)
    expect((await listAssignedCourses(admin, { userId: learner.id })).map((c) => c._id).sort()).toEqual(
      [first.id, second.id].sort(),
    )

    const response = await remove(program.id, admin.token, '?confirmUnassign=true')
    expect(response.status).toBe(200)
    expect(await body(response)).toEqual({ message: 'Program deleted.' })

    expect((await listAssignedCourses(admin, { userId: learner.id })).map((c) => c._id)).toEqual([first.id])
    expect(await tally(learner.id, first.id)).toBe(true)
    expect(await tally(learner.id, second.id)).toBe(false)
    const { Program, ProgramCourse, ProgramAssignment, VideoProgress, Course } = await db()
    expect(await Program.findByPk(program.id)).toBeNull()
    expect(await ProgramCourse.count({ where: { programId: program.id } })).toBe(0)
    expect(await ProgramAssignment.count({ where: { programId: program.id } })).toBe(0)
    // the courses stay, and progress is never deleted with a program
    expect(await Course.count({ where: { id: [first.id, second.id] } })).toBe(2)
    expect(await VideoProgress.count({ where: { userId: learner.id } })).toBe(2)
    // no orphan: the image's row and its stored body are gone
    expect(await fileGone(image.key)).toBe(true)
    expect((await remove(program.id, admin.token)).status).toBe(404)
  })

  it('deletes a program nobody is assigned without a confirmation', async () => {
    expect((await remove(program.id, admin.token)).status).toBe(200)
    expect(await fileGone(image.key)).toBe(true)
  })

  it('refuses a coach and a learner (403) in the service too, and a flag that is not true or false', async () => {
    for (const caller of [coach, learner]) {
      const response = await remove(program.id, caller.token, '?confirmUnassign=true')
      expect(response.status).toBe(403)
      expect(await body(response)).toEqual({ message: expect.any(String) })
      await expect(deleteProgram(caller, { programId: program.id, confirmUnassign: true })).rejects.toMatchObject({
        status: 403,
      })
    }
    const odd = await remove(program.id, admin.token, '?confirmUnassign=maybe')
    expect(odd.status).toBe(400)
    expect(await body(odd)).toMatchObject({ message: 'confirmUnassign is true or false.' })
    expect((await getProgram(admin, program.id)).title).toBeTruthy()
  })
})
