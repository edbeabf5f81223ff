import type { Sequelize } from 'sequelize'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import * as sessionExercises from '#db/migrations/0029-session-exercises.ts'
import { databaseAt } from '#tests/old-shape.ts'

// Migration 0029 on a database of the shape before it (up to 0027, with the kind check as the plan exercises'
// migration leaves it, which may or may not have run first): a two-session exercise may be kept, with its steps,
// and only such an exercise has steps; taken down, its exercises go and the check is as before.

let database: Awaited<ReturnType<typeof databaseAt>>
let old: Sequelize
const rows = <T extends object>(text: string, bind: unknown[] = []) => database.rows<T>(text, bind)
const migration = () => ({ name: '0029-session-exercises', context: (text: string) => old.query(text) })
let labId = ''

const insertExercise = (key: string, check: string, steps: unknown = null) =>
  rows(
    `INSERT INTO lab_exercises (lab_id, key, position, title, prompt, solution, check_kind, order_rule, column_rule,
       allow, points, steps)
     VALUES ($1, $2, 0, $2, 'Do it.', 'A: SELECT 1;', $3, 'auto', 'names', '{select}', 1, $4) RETURNING id`,
    [labId, key, check, steps === null ? null : JSON.stringify(steps)],
  )

beforeAll(async () => {
  database = await databaseAt('0027-identity-providers')
  old = database.sequelize
  const [{ id: courseId }] = await rows<{ id: string }>(`INSERT INTO courses (title) VALUES ('Old') RETURNING id`)
  ;[{ id: labId }] = await rows<{ id: string }>(
    `INSERT INTO labs (course_id, title, minutes, dataset_name, dataset_sql) VALUES ($1, 'Lab', 10, 'd.sql', 'SELECT 1')
     RETURNING id`,
    [courseId],
  )
  await rows(
    `INSERT INTO lab_exercises (lab_id, key, position, title, prompt, solution, check_kind, order_rule, column_rule,
       allow, points)
     VALUES ($1, 'kept', 0, 'Kept', 'Do it.', 'SELECT 1', 'result', 'auto', 'names', '{select}', 1) RETURNING id`,
    [labId],
  )
}, 60_000)

afterAll(async () => {
  await database?.drop()
})

describe('migration 0029: two-session exercises', () => {
  it('refuses a sessions exercise before it', async () => {
    await expect(
      rows(
        `INSERT INTO lab_exercises (lab_id, key, position, title, prompt, solution, check_kind, order_rule,
           column_rule, allow, points)
         VALUES ($1, 'early', 1, 'Early', 'Do it.', 'A: SELECT 1;', 'sessions', 'auto', 'names', '{select}', 1)
         RETURNING id`,
        [labId],
      ),
    ).rejects.toThrow(/lab_exercises_check_kind_check/)
  })

  it('keeps sessions exercises with their steps, and steps only on them, whichever kinds the check listed', async () => {
    // as the plan exercises' migration leaves the check, had it run first
    await old.query(`ALTER TABLE lab_exercises DROP CONSTRAINT lab_exercises_check_kind_check,
      ADD CONSTRAINT lab_exercises_check_kind_check CHECK (check_kind IN ('result', 'state', 'plan'))`)
    await sessionExercises.up(migration())
    await insertExercise('two', 'sessions', [{ waits: 'B' }])
    await insertExercise('plan', 'plan')
    await expect(insertExercise('bare', 'sessions')).rejects.toThrow(/lab_exercises_steps_check/)
    await expect(insertExercise('stray', 'result', [{ waits: 'B' }])).rejects.toThrow(/lab_exercises_steps_check/)
    await expect(insertExercise('odd', 'other')).rejects.toThrow(/lab_exercises_check_kind_check/)
    const kept = await rows<{ key: string; check_kind: string; steps: unknown }>(
      'SELECT key, check_kind, steps FROM lab_exercises ORDER BY key',
    )
    expect(kept).toEqual([
      { key: 'kept', check_kind: 'result', steps: null },
      { key: 'plan', check_kind: 'plan', steps: null },
      { key: 'two', check_kind: 'sessions', steps: [{ waits: 'B' }] },
    ])
  })

  it('taken down, drops the sessions exercises and their steps, and goes up again', async () => {
    await sessionExercises.down(migration())
    const left = await rows<{ key: string }>('SELECT key FROM lab_exercises ORDER BY key')
    expect(left.map((r) => r.key)).toEqual(['kept', 'plan'])
    const [{ count }] = await rows<{ count: number }>(
      `SELECT count(*)::int AS count FROM information_schema.columns WHERE table_name = 'lab_exercises' AND column_name = 'steps'`,
    )
    expect(count).toBe(0)
    await sessionExercises.up(migration())
    await insertExercise('again', 'sessions', [{ committed: 'A' }])
  })
})
