import { describe, expect, it } from 'vitest'
import * as listRoute from '#app/routes/api+/assignmentDocuments.getAssignmentDocumentsByCourseAndUser.$courseId.$userId.ts'
import * as uploadRoute from '#app/routes/api+/assignmentDocuments.uploadAssignmentDocument.ts'
import * as assignedRoute from '#app/routes/api+/category.assignedCourses.$userId.ts'
import { db } from '#db/client.ts'
import {
  assignCourse,
  makeCoach,
  makeCourse,
  makeDocument,
  makeLearner,
  makeStoredFile,
  recordWatched,
} from '#tests/factories.ts'
import { body, call } from '#tests/requests.ts'

describe('GET /api/category/assignedCourses/{userId}', () => {
  it('gives a learner their own courses with percentage and seconds watched, and nobody else’s', async () => {
    const learner = await makeLearner()
    const course = await makeCourse({ title: 'Assigned API', videos: [{ duration: 100 }, { duration: 100 }] })
    await assignCourse(learner.id, course.id)
    await recordWatched(learner.id, course.id, course.videos[0], 50)
    const image = await makeStoredFile('course_image', { name: 'warehouse.png' })
    await (await db()).Course.update({ imageKey: image.key }, { where: { id: course.id } })
    const own = await call(assignedRoute.loader as never, '/x', {
      token: learner.token,
      params: { userId: learner.id },
    })
    expect(await body(own)).toEqual({
      message: {
        assignedCourses: [
          expect.objectContaining({
            _id: course.id,
            title: 'Assigned API',
            duration: 200,
            courseProgress: 50,
            percentage: 25,
            // the old client's courseImage { link, key, name }
            courseImage: { key: image.key, link: `/files/${image.key}`, name: 'warehouse.png' },
          }),
        ],
      },
    })
    const other = await makeLearner()
    expect(
      (await call(assignedRoute.loader as never, '/x', { token: other.token, params: { userId: learner.id } })).status,
    ).toBe(403)
    const coach = await makeCoach()
    expect(
      (await call(assignedRoute.loader as never, '/x', { token: coach.token, params: { userId: learner.id } })).status,
    ).toBe(200)
    expect((await call(assignedRoute.loader as never, '/x', { params: { userId: learner.id } })).status).toBe(401)
  })
})

describe('assessments', () => {
  async function setup() {
    const learner = await makeLearner()
    const course = await makeCourse()
    await assignCourse(learner.id, course.id)
    const scenario = await makeDocument(course.id, { kind: 'scenario', name: 'Sales case.pdf' })
    const file = await makeStoredFile('assessment', { uploadedBy: learner.id, name: 'my answer.pdf' })
    return { learner, course, scenario, file }
  }
  const upload = (token: string, json: Record<string, unknown>) =>
    call(uploadRoute.action as never, '/x', { method: 'POST', token, json })

  it('registers the learner’s file against a visible scenario; the learner lists only their own', async () => {
    const { learner, course, scenario, file } = await setup()
    const payload = { courseId: course.id, userId: learner.id, relatedScenarioId: scenario.id, document: file }
    const response = await upload(learner.token, payload)
    expect(response.status).toBe(200)
    expect(await body(response)).toMatchObject({
      message: 'Assessment submitted.',
      data: { relatedScenarioId: scenario.id, scenarioName: 'Sales case.pdf', document: { name: 'my answer.pdf' } },
    })
    // the same request again is harmless
    expect((await upload(learner.token, payload)).status).toBe(200)
    const { AssessmentUpload } = await db()
    expect(await AssessmentUpload.count({ where: { userId: learner.id } })).toBe(1)

    const list = (token: string, userId: string) =>
      call(listRoute.loader as never, '/x', { token, params: { courseId: course.id, userId } })
    const own = await body<{ data: unknown[] }>(await list(learner.token, learner.id))
    expect(own.data).toHaveLength(1)
    const stranger = await makeLearner()
    expect((await list(stranger.token, learner.id)).status).toBe(403)
    expect((await body<{ data: unknown[] }>(await list((await makeCoach()).token, learner.id))).data).toHaveLength(1)
  })

  it('answers the old client’s messages and refuses files that are not the learner’s own assessment', async () => {
    const { learner, course, scenario, file } = await setup()
    expect(await body(await upload(learner.token, { courseId: course.id }))).toMatchObject({
      errors: { relatedScenarioId: 'Please choose a scenario', document: 'Please Upload a document' },
    })
    const someoneElses = await makeStoredFile('assessment', { uploadedBy: (await makeLearner()).id })
    const courseDocument = await makeStoredFile('document')
    for (const document of [someoneElses, courseDocument]) {
      const refused = await upload(learner.token, { courseId: course.id, relatedScenarioId: scenario.id, document })
      expect(await body(refused)).toMatchObject({ errors: { document: 'Please Upload a document' } })
    }
    const hidden = await makeDocument(course.id, { kind: 'scenario', visibility: false })
    const hiddenRefused = await upload(learner.token, {
      courseId: course.id,
      relatedScenarioId: hidden.id,
      document: file,
    })
    expect(await body(hiddenRefused)).toMatchObject({ errors: { relatedScenarioId: 'Please choose a scenario' } })
    const other = await makeCourse()
    const notAssigned = await upload(learner.token, {
      courseId: other.id,
      relatedScenarioId: scenario.id,
      document: file,
    })
    expect(notAssigned.status).toBe(403)
    const forSomeoneElse = await upload(learner.token, {
      courseId: course.id,
      userId: (await makeLearner()).id,
      relatedScenarioId: scenario.id,
      document: file,
    })
    expect(forSomeoneElse.status).toBe(403)
    const byCoach = await upload((await makeCoach()).token, {
      courseId: course.id,
      relatedScenarioId: scenario.id,
      document: file,
    })
    expect(byCoach.status).toBe(403)
  })
})
