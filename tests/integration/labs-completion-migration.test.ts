import type { Sequelize } from 'sequelize'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { migrateTables } from '#db/migrate.ts'
import * as labsInCompletion from '#db/migrations/0019-labs-in-completion.ts'
import { completionMismatches, EXACT } from '#tests/completion.ts'
import { databaseAt } from '#tests/old-shape.ts'

// Migration 0019 on a database of the shape before it (migrations up to 0018), holding labs already
// attempted: passed and failed attempts, a hidden lab, a learner who is not assigned, a course of labs only.
// Once migrated, lab_progress and the tallies are what a recount gives, and completion per course follows
// the labs; taken down, completion is the videos' alone again; up again, the triggers keep it.

let database: Awaited<ReturnType<typeof databaseAt>>
let old: Sequelize
const rows = <T extends object>(text: string, bind: unknown[] = []) => database.rows<T>(text, bind)
const one = async <T extends object>(text: string, bind: unknown[] = []) => (await rows<T>(text, bind))[0]
const migration = () => ({ name: '0019-labs-in-completion', context: (text: string) => old.query(text) })

const ids: Record<string, string> = {}

async function insertUser(name: string) {
  ids[name] = (
    await one<{ id: string }>(
      `INSERT INTO users (first_name, user_name, email, role_id) VALUES ($1::text, $1::text, $1::text || '@example.com', 2) RETURNING id`,
      [name],
    )
  ).id
}
async function insertCourse(name: string) {
  ids[name] = (await one<{ id: string }>('INSERT INTO courses (title) VALUES ($1) RETURNING id', [name])).id
}
async function insertVideo(name: string, course: string, visible = true) {
  ids[name] = (
    await one<{ id: string }>(
      `INSERT INTO content_entries (course_id, kind, title, embed_url, duration, visibility)
       VALUES ($1, 'video', $2, 'https://www.youtube-nocookie.com/embed/old', 100, $3) RETURNING id`,
      [ids[course], name, visible],
    )
  ).id
}
async function insertLab(name: string, course: string, exercises: [string, number][], visible = true) {
  ids[name] = (
    await one<{ id: string }>(
      `INSERT INTO labs (course_id, title, minutes, dataset_name, dataset_sql, visibility)
       VALUES ($1, $2, 10, 'data.sql', 'SELECT 1', $3) RETURNING id`,
      [ids[course], name, visible],
    )
  ).id
  for (const [position, [key, points]] of exercises.entries())
    await rows(
      `INSERT INTO lab_exercises (lab_id, key, position, title, prompt, solution, check_kind, order_rule, column_rule,
         allow, points)
       VALUES ($1, $2, $3, $2, 'Do it.', 'SELECT 1', 'result', 'auto', 'names', '{select}', $4) RETURNING id`,
      [ids[name], key, position, points],
    )
}
const watched = (user: string, video: string, course: string) =>
  rows(
    `INSERT INTO video_progress (user_id, video_id, course_id, watched_seconds, completed)
     VALUES ($1, $2, $3, 100, true) RETURNING user_id`,
    [ids[user], ids[video], ids[course]],
  )
const attempt = (user: string, lab: string, key: string, passed: boolean) =>
  rows(
    `INSERT INTO lab_attempts (exercise_id, user_id, sql, passed, message, duration_ms)
     SELECT id, $1, 'SELECT 1', $4, '', 1 FROM lab_exercises WHERE lab_id = $2 AND key = $3 RETURNING id`,
    [ids[user], ids[lab], key, passed],
  )
const assign = (user: string, course: string) =>
  rows('INSERT INTO course_assignments (user_id, course_id) VALUES ($1, $2) RETURNING user_id', [
    ids[user],
    ids[course],
  ])

/** Per course of this file: [assigned, completed] as the dashboard reads them. */
async function counts() {
  const found = await rows<{ title: string; assigned: number; completed: number }>(
    `SELECT c.title, k.assigned, k.completed FROM courses c JOIN course_completion_counts k ON k.course_id = c.id`,
  )
  return Object.fromEntries(found.map((r) => [r.title, [r.assigned, r.completed]]))
}

beforeAll(async () => {
  database = await databaseAt('0018-labs')
  old = database.sequelize

  for (const name of ['done', 'halfway', 'viaProgram', 'outsider']) await insertUser(name)
  for (const name of ['Mixed', 'Labs only', 'Videos only']) await insertCourse(name)
  await insertVideo('mixed video', 'Mixed')
  await insertVideo('mixed hidden video', 'Mixed', false)
  await insertVideo('plain video', 'Videos only')
  await insertLab('mixed lab', 'Mixed', [
    ['a', 1],
    ['b', 2],
  ])
  await insertLab('mixed hidden lab', 'Mixed', [['a', 1]], false)
  await insertLab('only lab', 'Labs only', [['a', 5]])

  await assign('done', 'Mixed')
  await assign('halfway', 'Mixed')
  await assign('done', 'Videos only')
  const [{ id: program }] = await rows<{ id: string }>(`INSERT INTO programs (title) VALUES ('Old') RETURNING id`)
  for (const [position, course] of ['Mixed', 'Labs only'].entries())
    await rows(
      'INSERT INTO program_courses (program_id, course_id, position) VALUES ($1, $2, $3) RETURNING program_id',
      [program, ids[course], position],
    )
  await rows('INSERT INTO program_assignments (user_id, program_id) VALUES ($1, $2) RETURNING user_id', [
    ids.viaProgram,
    program,
  ])

  for (const user of ['done', 'halfway', 'viaProgram', 'outsider']) await watched(user, 'mixed video', 'Mixed')
  await watched('done', 'plain video', 'Videos only')
  await attempt('done', 'mixed lab', 'a', false)
  await attempt('done', 'mixed lab', 'a', true)
  await attempt('done', 'mixed lab', 'b', true)
  await attempt('done', 'mixed lab', 'b', true)
  await attempt('halfway', 'mixed lab', 'a', true)
  await attempt('halfway', 'mixed lab', 'b', false)
  await attempt('halfway', 'mixed hidden lab', 'a', true)
  await attempt('viaProgram', 'only lab', 'a', true)
  await attempt('outsider', 'mixed lab', 'a', true)
  await attempt('outsider', 'mixed lab', 'b', true)
}, 60_000)

afterAll(async () => {
  await database?.drop()
})

const AFTER = { Mixed: [3, 1], 'Labs only': [1, 1], 'Videos only': [1, 1] }

describe('migration 0019, labs in completion', () => {
  it('counts the labs already attempted once migrated, and the videos alone once taken down', async () => {
    // as before: every learner who completed the visible video has completed Mixed; Labs only is never done
    expect(await counts()).toEqual({ Mixed: [3, 3], 'Labs only': [1, 0], 'Videos only': [1, 1] })

    // up to 0019 only: later migrations build on its columns and would have to come down first
    await migrateTables(old, () => {}, '0019-labs-in-completion')
    expect(await counts()).toEqual(AFTER)
    const progress = await rows<{ user: string; lab: string; passed: number; points: number; completed: boolean }>(
      `SELECT u.user_name AS user, l.title AS lab, p.passed_exercises AS passed, p.passed_points AS points, p.completed
         FROM lab_progress p JOIN users u ON u.id = p.user_id JOIN labs l ON l.id = p.lab_id
        ORDER BY u.user_name, l.title`,
    )
    expect(progress).toEqual([
      { user: 'done', lab: 'mixed lab', passed: 2, points: 3, completed: true },
      { user: 'halfway', lab: 'mixed hidden lab', passed: 1, points: 1, completed: true },
      { user: 'halfway', lab: 'mixed lab', passed: 1, points: 1, completed: false },
      { user: 'outsider', lab: 'mixed lab', passed: 2, points: 3, completed: true },
      { user: 'viaProgram', lab: 'only lab', passed: 1, points: 5, completed: true },
    ])
    expect(await completionMismatches(old)).toEqual(EXACT)

    await labsInCompletion.down(migration())
    expect(await counts()).toEqual({ Mixed: [3, 3], 'Labs only': [1, 0], 'Videos only': [1, 1] })
    const [{ present }] = await rows<{ present: boolean }>(
      `SELECT EXISTS (SELECT 1 FROM information_schema.columns
                       WHERE table_name = 'course_completion_tallies' AND column_name = 'completed_labs') AS present`,
    )
    expect(present).toBe(false)
    // taken down, the videos' triggers still work
    await watched('outsider', 'plain video', 'Videos only')
    await assign('outsider', 'Videos only')
    expect((await counts())['Videos only']).toEqual([2, 2])

    await labsInCompletion.up(migration())
    expect(await counts()).toEqual({ ...AFTER, 'Videos only': [2, 2] })
    // and the triggers keep it: the halfway learner passes b, the hidden lab shown un-completes the others
    await attempt('halfway', 'mixed lab', 'b', true)
    expect((await counts()).Mixed).toEqual([3, 2])
    await rows(`UPDATE labs SET visibility = true WHERE id = $1 RETURNING id`, [ids['mixed hidden lab']])
    expect((await counts()).Mixed).toEqual([3, 1])
    expect(await completionMismatches(old)).toEqual(EXACT)
  })
})
