import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { migrateTables } from '#db/migrate.ts'
import * as planExercises from '#db/migrations/0028-plan-exercises.ts'
import { databaseAt } from '#tests/old-shape.ts'

// Migration 0028 on a database of the shape before it: a result exercise stays as it was, a plan exercise can be
// stored only with its rules and cost, and taken down the plan exercises go while the others stay.

let database: Awaited<ReturnType<typeof databaseAt>>
let lab: string
const migration = () => ({
  name: '0028-plan-exercises',
  context: (text: string) => database.sequelize.query(text),
})

const insertExercise = (key: string, kind: string, rules: string | null, cost: number | null) =>
  database.rows(
    `INSERT INTO lab_exercises (lab_id, key, position, title, prompt, solution, check_kind, order_rule, column_rule,
       allow, plan_rules, plan_cost)
     VALUES ($1, $2, 1, $2, 'Do it.', 'SELECT 1', $3, 'auto', 'names', '{select}', $4::jsonb, $5) RETURNING id`,
    [lab, key, kind, rules, cost],
  )

beforeAll(async () => {
  database = await databaseAt('0027-identity-providers')
  const [{ id: course }] = await database.rows<{ id: string }>(`INSERT INTO courses (title) VALUES ('C') RETURNING id`)
  ;[{ id: lab }] = await database.rows<{ id: string }>(
    `INSERT INTO labs (course_id, title, minutes, dataset_name, dataset_sql)
     VALUES ($1, 'L', 10, 'data.sql', 'SELECT 1') RETURNING id`,
    [course],
  )
  await database.rows(
    `INSERT INTO lab_exercises (lab_id, key, position, title, prompt, solution, check_kind, order_rule, column_rule,
       allow) VALUES ($1, 'old', 0, 'Old', 'Do it.', 'SELECT 1', 'result', 'auto', 'names', '{select}') RETURNING id`,
    [lab],
  )
}, 60_000)

afterAll(async () => {
  await database?.drop()
})

describe('migration 0028, plan exercises', () => {
  it('stores plan exercises only with their rules and cost, and takes them away when taken down', async () => {
    await expect(insertExercise('early', 'plan', '{"has": ["Index Scan"]}', 1)).rejects.toThrow()

    await migrateTables(database.sequelize, () => {}, '0028-plan-exercises')
    await insertExercise('plan', 'plan', '{"has": ["Index Scan"]}', 12.5)
    await expect(insertExercise('no-rules', 'plan', null, 1)).rejects.toThrow(/plan_fields/)
    await expect(insertExercise('no-cost', 'plan', '{"lacks": ["SubPlan"]}', null)).rejects.toThrow(/plan_fields/)
    await expect(insertExercise('rules-on-result', 'result', '{"has": ["Hash Join"]}', 1)).rejects.toThrow(
      /plan_fields/,
    )
    const [{ plan_rules, plan_cost }] = await database.rows<{ plan_rules: unknown; plan_cost: number }>(
      `SELECT plan_rules, plan_cost FROM lab_exercises WHERE key = 'plan'`,
    )
    expect({ plan_rules, plan_cost }).toEqual({ plan_rules: { has: ['Index Scan'] }, plan_cost: 12.5 })

    await planExercises.down(migration())
    const keys = await database.rows<{ key: string }>('SELECT key FROM lab_exercises ORDER BY key')
    expect(keys).toEqual([{ key: 'old' }])
    await expect(insertExercise('again', 'plan', null, null)).rejects.toThrow()

    await planExercises.up(migration())
    await insertExercise('plan', 'plan', '{"has": ["Index Scan"]}', 3)
  })
})
