import { QueryTypes, UniqueConstraintError } from 'sequelize'
import { describe, expect, it } from 'vitest'
import { sequelize } from '#db/client.ts'
import { makeCourse, makeDocument, makeLearner, makeStoredFile, makeUser, recordWatched } from '#tests/factories.ts'

// Integrity lives in the database, not only in the services that usually guard it.

/** The error a write refused by the unique constraint or key `constraint` fails with. */
const unique = (constraint: string) =>
  expect.objectContaining({
    name: new UniqueConstraintError({}).name,
    parent: expect.objectContaining({ constraint }),
  })

async function rejects(sql: string, replacements: Record<string, unknown>, pattern: RegExp) {
  await expect((await sequelize()).query(sql, { replacements })).rejects.toThrow(pattern)
}

describe('the schema', () => {
  it('keeps emails and usernames unique regardless of case', async () => {
    await makeUser({ email: 'Mixed.Case@Example.com', userName: 'MixedCase' })
    await expect(makeUser({ email: 'mixed.case@example.COM' })).rejects.toThrow(unique('users_email_unique'))
    await expect(makeUser({ userName: 'mixedcase' })).rejects.toThrow(unique('users_user_name_unique'))
  })

  it('keeps one progress record per user and video', async () => {
    const learner = await makeLearner()
    const course = await makeCourse({ videos: [{}] })
    await recordWatched(learner.id, course.id, course.videos[0], 10)
    await expect(recordWatched(learner.id, course.id, course.videos[0], 20)).rejects.toThrow(
      unique('video_progress_pkey'),
    )
  })

  it('refuses a prerequisite or progress record that points into another course', async () => {
    const a = await makeCourse({ videos: [{}] })
    const b = await makeCourse({ videos: [{}] })
    await rejects(
      'INSERT INTO video_prerequisites (video_id, prerequisite_id, course_id) VALUES (:v, :p, :c)',
      { v: a.videos[0].id, p: b.videos[0].id, c: a.id },
      /foreign key/i,
    )
    const learner = await makeLearner()
    await rejects(
      'INSERT INTO video_progress (user_id, video_id, course_id) VALUES (:u, :v, :c)',
      { u: learner.id, v: a.videos[0].id, c: b.id },
      /foreign key/i,
    )
  })

  it('refuses a video without an embed address and a file entry without a file', async () => {
    const course = await makeCourse()
    await rejects(
      "INSERT INTO content_entries (course_id, kind, title) VALUES (:c, 'video', 'No address')",
      { c: course.id },
      /content_entries_shape/,
    )
    await rejects(
      "INSERT INTO content_entries (course_id, kind, title) VALUES (:c, 'document', 'No file')",
      { c: course.id },
      /content_entries_shape/,
    )
  })

  it('refuses negative orders, durations and an unknown role', async () => {
    const course = await makeCourse()
    await rejects(
      "INSERT INTO content_entries (course_id, kind, order_id, embed_url) VALUES (:c, 'video', -1, 'https://x')",
      { c: course.id },
      /check constraint/i,
    )
    await rejects(
      "INSERT INTO content_entries (course_id, kind, duration, embed_url) VALUES (:c, 'video', -5, 'https://x')",
      { c: course.id },
      /check constraint/i,
    )
    await rejects(
      "INSERT INTO users (first_name, user_name, email, role_id) VALUES ('Ann', 'ann', 'ann@example.com', 9)",
      {},
      /foreign key/i,
    )
  })

  it('removes a course’s entries, progress and assignments with the course', async () => {
    const learner = await makeLearner()
    const course = await makeCourse({ videos: [{}, { after: [0] }] })
    await recordWatched(learner.id, course.id, course.videos[0], 50)
    const sql = await sequelize()
    await sql.query('INSERT INTO course_assignments (user_id, course_id) VALUES (:u, :c)', {
      replacements: { u: learner.id, c: course.id },
    })
    await sql.query('DELETE FROM courses WHERE id = :c', { replacements: { c: course.id } })
    const [left] = await sql.query<{ n: string }>(
      `SELECT (SELECT count(*) FROM content_entries WHERE course_id = :c)
            + (SELECT count(*) FROM video_progress WHERE course_id = :c)
            + (SELECT count(*) FROM video_prerequisites WHERE course_id = :c)
            + (SELECT count(*) FROM course_assignments WHERE course_id = :c) AS n`,
      { replacements: { c: course.id }, type: QueryTypes.SELECT },
    )
    expect(Number(left.n)).toBe(0)
  })

  it('keeps a scenario that has submitted assessments, whatever deletes it', async () => {
    const learner = await makeLearner()
    const course = await makeCourse()
    const scenario = await makeDocument(course.id, { kind: 'scenario' })
    const work = await makeStoredFile('assessment', { uploadedBy: learner.id })
    await rejects(
      'INSERT INTO assessment_uploads (user_id, course_id, scenario_id, file_key) VALUES (:u, :c, :s, :f); DELETE FROM content_entries WHERE id = :s',
      { u: learner.id, c: course.id, s: scenario.id, f: work.key },
      /foreign key/i,
    )
  })

  it('has the indexes the access-log report reads by date and by course', async () => {
    const rows = await (
      await sequelize()
    ).query<{ indexname: string; indexdef: string }>(
      "SELECT indexname, indexdef FROM pg_indexes WHERE tablename IN ('video_viewings', 'access_log_pings', 'lab_exercise_results')",
      { type: QueryTypes.SELECT },
    )
    const defs = rows.map((r) => r.indexdef)
    expect(defs).toContainEqual(expect.stringMatching(/video_viewings .*\(last_viewed_at DESC, user_id, video_id\)/))
    expect(defs).toContainEqual(
      expect.stringMatching(/video_viewings .*\(course_id, last_viewed_at DESC, user_id, video_id\)/),
    )
    // the lab rows, in the same order, to be merged with the video rows
    expect(defs).toContainEqual(
      expect.stringMatching(/lab_exercise_results .*\(last_attempt_at DESC, user_id, exercise_id\)/),
    )
    expect(defs).toContainEqual(
      expect.stringMatching(/lab_exercise_results .*\(course_id, last_attempt_at DESC, user_id, exercise_id\)/),
    )
    expect(defs).toContainEqual(expect.stringMatching(/access_log_pings .*\(recorded_at\)/))
    expect(defs).toContainEqual(expect.stringMatching(/access_log_pings .*\(course_id, recorded_at\)/))
  })
})
