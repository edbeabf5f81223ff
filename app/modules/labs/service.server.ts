import pg from 'pg'
import { getEnv } from '#app/utils/env.server.ts'
import { select, transaction } from '#db/client.ts'
import { can, requirePermission } from '../auth/permissions.ts'
import type { Actor } from '../auth/roles.ts'
import { canOpenCourse } from '../courses/access.server.ts'
import { findCourseByIdentifier } from '../courses/catalogue.server.ts'
import { conflict, forbidden, invalid, isServiceError, notFound } from '../errors.ts'
import { isUuid } from '../ids.ts'
import { compareEngines } from './engines.server.ts'
import { readLabFolder, type LabFolder } from './folder.server.ts'
import { grade, solve, type Expected, type GradedExercise, type Grading } from './grading.server.ts'
import type { PlanRules } from './plan.ts'
import {
  buildLabDatabases,
  dropLabDatabases,
  practiceDataset,
  type LabDatabases,
  type LabTable,
} from './sandbox.server.ts'
import { AttemptSchema, type CheckKind, type ExerciseDefinition, type Step } from './schema.ts'
import { runSessionScript } from './sessions.server.ts'
import { giveGradingSlot, takeGradingSlot } from './slots.server.ts'

// Labs as the portal keeps them: imported from an author's folder (built in the sandbox, each exercise's
// answer taken from its solution), listed, and written back as a folder.

/** Copies of a lab's database for exercises that change data or tables (state and plan): attempts of this process at once. */
const STATE_COPIES = 2

type ImportedLab = {
  id: string
  title: string
  courseId: string
  courseTitle: string
  created: boolean
  exercises: { kept: string[]; added: string[]; removed: string[] }
  /** how long building the dataset and solving every exercise took */
  buildMs: number
}

const graded = (exercise: ExerciseDefinition) => ({
  key: exercise.key,
  check: exercise.check,
  verify: exercise.verify ?? [],
  order: exercise.order,
  columns: exercise.columns,
  allow: exercise.allow,
  solution: exercise.solution,
  ...(exercise.plan ? { rules: exercise.plan } : {}),
})

/** Exercises that run on one of the lab's copies: those whose statements change data or tables. */
const onCopies = (check: string) => check === 'state' || check === 'plan'

/**
 * What the build keeps of a two-session exercise's solution: the log of its script, in words (grading reads the
 * learner's own log against the steps; this shows an admin what a passing log looks like).
 */
type SessionsExpected = { log: string }

type Solution = Omit<Awaited<ReturnType<typeof solve>>, 'expected'> & { expected: Expected | SessionsExpected }
type Solved = Solution & { exercise: ExerciseDefinition }

/**
 * Runs an exercise's solution on a newly built lab: a query, changes or a plan through grading's solve, a
 * two-session script through a pair of its own, refused (naming the exercise) when its log does not meet the steps.
 */
async function solveExercise(built: LabDatabases, exercise: ExerciseDefinition): Promise<Solution> {
  if (exercise.check !== 'sessions') return solve(built, { ...graded(exercise), check: exercise.check })
  const started = performance.now()
  const outcome = await runSessionScript(
    { id: 'build', database: built.database },
    { key: exercise.key, allow: exercise.allow, steps: exercise.steps ?? [], solution: exercise.solution },
  )
  if (!outcome.passed)
    throw invalid(`Exercise ${exercise.key}: the solution does not meet its steps. ${outcome.message}\n${outcome.log}`)
  return { expected: { log: outcome.log }, ordered: false, ms: Math.round(performance.now() - started) }
}

/** What a lab's build makes: copies for exercises that change data or tables, a pair template for two-session ones. */
function buildNeeds(exercises: readonly { check: string }[], copies: number) {
  return {
    copies: exercises.some((e) => onCopies(e.check)) ? copies : 0,
    sessions: exercises.some((e) => e.check === 'sessions'),
  }
}

/** Builds a folder's dataset in the sandbox and takes each exercise's answer from its solution. */
async function buildAndSolve(
  folder: LabFolder,
): Promise<{ built: LabDatabases & { tables: LabTable[] }; solved: Solved[] }> {
  const { definition } = folder
  const needs = buildNeeds(definition.exercises, STATE_COPIES)
  const built = await buildLabDatabases(
    { sql: folder.datasetSql, name: definition.dataset, files: folder.dataFiles },
    needs.copies,
    { sessions: needs.sessions },
  )
  try {
    const solved: Solved[] = []
    for (const exercise of definition.exercises) solved.push({ exercise, ...(await solveExercise(built, exercise)) })
    return { built, solved }
  } catch (error) {
    await dropLabDatabases([built.database, ...built.copies])
    throw error
  }
}

/**
 * Creates the lab of a folder in a course, or updates the course's lab of the same title: its text, its
 * dataset (built anew) and its exercises, matched by key, so learners' attempts stay with the exercises
 * whose key stays. The old build's databases go once the new one is in place.
 */
export async function importLab(actor: Actor, input: { folder: LabFolder; course: string }): Promise<ImportedLab> {
  requirePermission(actor, 'update:content')
  const course = await findCourseByIdentifier(input.course)
  const started = performance.now()
  const { built, solved } = await buildAndSolve(input.folder)
  const { definition, datasetSql, dataFiles } = input.folder
  try {
    const saved = await transaction(async (tx) => {
      const [existing] = await select<{ id: string; database: string | null; state_copies: string[] }>(
        'SELECT id, database, state_copies FROM labs WHERE course_id = $1 AND lower(title) = lower($2) FOR UPDATE',
        [course.id, definition.title],
        tx,
      )
      const [{ id }] = await select<{ id: string }>(
        existing
          ? `UPDATE labs SET title = $2, description = $3, minutes = $4, dataset_name = $5, dataset_sql = $6,
               database = $7, state_copies = $8, tables = $9, built_at = now(), updated_at = now()
             WHERE id = $1 RETURNING id`
          : `INSERT INTO labs (course_id, title, description, minutes, dataset_name, dataset_sql, database,
               state_copies, tables, built_at, order_id)
             SELECT $1, $2, $3, $4, $5, $6, $7, $8, $9, now(), coalesce(max(order_id) + 1, 0)
             FROM labs WHERE course_id = $1
             RETURNING id`,
        [
          existing?.id ?? course.id,
          definition.title,
          definition.description,
          definition.minutes,
          definition.dataset,
          datasetSql,
          built.database,
          built.copies,
          JSON.stringify(built.tables),
        ],
        tx,
      )
      const before = await select<{ key: string }>('SELECT key FROM lab_exercises WHERE lab_id = $1', [id], tx)
      const keys = new Set(solved.map((s) => s.exercise.key))
      const removed = before.map((r) => r.key).filter((key) => !keys.has(key))
      await select(
        'DELETE FROM lab_exercises WHERE lab_id = $1 AND NOT (key = ANY($2)) RETURNING id',
        [id, [...keys]],
        tx,
      )
      for (const [position, { exercise, expected, ordered, plan }] of solved.entries())
        await select(
          `INSERT INTO lab_exercises (lab_id, key, position, title, prompt, solution, check_kind, verify, order_rule,
             column_rule, allow, points, hints, expected, ordered, plan_rules, plan_cost, plan_expected, steps)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19)
           ON CONFLICT (lab_id, key) DO UPDATE SET position = excluded.position, title = excluded.title,
             prompt = excluded.prompt, solution = excluded.solution, check_kind = excluded.check_kind,
             verify = excluded.verify, order_rule = excluded.order_rule, column_rule = excluded.column_rule,
             allow = excluded.allow, points = excluded.points, hints = excluded.hints, expected = excluded.expected,
             ordered = excluded.ordered, plan_rules = excluded.plan_rules, plan_cost = excluded.plan_cost,
             plan_expected = excluded.plan_expected, steps = excluded.steps
           RETURNING id`,
          [
            id,
            exercise.key,
            position,
            exercise.title,
            exercise.prompt,
            exercise.solution,
            exercise.check,
            exercise.verify ?? [],
            exercise.order,
            exercise.columns,
            exercise.allow,
            exercise.points,
            exercise.hints,
            JSON.stringify(expected),
            ordered,
            exercise.plan ? JSON.stringify(exercise.plan) : null,
            plan?.cost ?? null,
            plan ? JSON.stringify(plan.tree) : null,
            exercise.steps ? JSON.stringify(exercise.steps) : null,
          ],
          tx,
        )
      await select('DELETE FROM lab_files WHERE lab_id = $1 RETURNING name', [id], tx)
      for (const file of dataFiles)
        await select(
          'INSERT INTO lab_files (lab_id, name, content) VALUES ($1, $2, $3) RETURNING name',
          [id, file.name, file.content],
          tx,
        )
      const kept = before.map((r) => r.key).filter((key) => keys.has(key))
      return {
        id,
        created: !existing,
        old: existing ? [existing.database, ...existing.state_copies].filter((d): d is string => Boolean(d)) : [],
        exercises: { kept, added: [...keys].filter((key) => !kept.includes(key)), removed },
      }
    })
    await dropLabDatabases(saved.old)
    return {
      id: saved.id,
      title: definition.title,
      courseId: course.id,
      courseTitle: course.title,
      created: saved.created,
      exercises: saved.exercises,
      buildMs: Math.round(performance.now() - started),
    }
  } catch (error) {
    await dropLabDatabases([built.database, ...built.copies])
    throw error
  }
}

type CheckedExercise = { key: string; ok: boolean; ms: number; message: string }
type LabCheck = { ok: boolean; title: string; buildMs: number; exercises: CheckedExercise[]; problems: string[] }

/**
 * An author's check of a lab folder: builds its dataset in a throwaway part of the sandbox, runs every
 * solution and verify query, and reports any that fails or takes longer than half the time limit (a
 * learner's attempt gets the whole of it, on a busier server). Nothing is kept.
 */
export async function checkLabDirectory(dir: string): Promise<LabCheck> {
  // what is wrong with the folder itself (no lab.yaml, a key misspelt) is the check's finding too
  const folder = await readLabFolder(dir).catch((error: unknown) => {
    if (!isServiceError(error)) throw error
    return error
  })
  if (isServiceError(folder)) return { ok: false, title: dir, buildMs: 0, exercises: [], problems: [folder.message] }
  return checkLabFolder(folder)
}

async function checkLabFolder(folder: LabFolder): Promise<LabCheck> {
  const { definition } = folder
  const started = performance.now()
  const needs = buildNeeds(definition.exercises, 1)
  let built: LabDatabases
  try {
    built = await buildLabDatabases(
      { sql: folder.datasetSql, name: definition.dataset, files: folder.dataFiles },
      needs.copies,
      { sessions: needs.sessions },
    )
  } catch (error) {
    const message = (error as Error).message
    return {
      ok: false,
      title: definition.title,
      buildMs: Math.round(performance.now() - started),
      exercises: [],
      problems: [message],
    }
  }
  const buildMs = Math.round(performance.now() - started)
  const slow = getEnv().LABS_TIME_LIMIT_MS / 2
  const exercises: CheckedExercise[] = []
  const solved: Parameters<typeof compareEngines>[1][number][] = []
  try {
    for (const exercise of definition.exercises) {
      const at = performance.now()
      try {
        const { ms, expected, ordered, plan } = await solveExercise(built, exercise)
        // a two-session script has no one answer to compare: its log is graded against its steps
        if (exercise.check !== 'sessions' && !('log' in expected))
          solved.push({ ...graded(exercise), check: exercise.check, expected, ordered })
        const runs = plan
          ? `The solution runs and its plan (estimated cost ${plan.cost}) meets the exercise's rules`
          : 'The solution runs'
        // a two-session script waits on locks by design, each of its statements under the watchdog
        exercises.push(
          ms > slow && exercise.check !== 'sessions'
            ? { key: exercise.key, ok: false, ms, message: `The solution took ${ms} ms, more than ${slow} ms.` }
            : { key: exercise.key, ok: true, ms, message: `${runs}, and grading has its answer.` },
        )
      } catch (error) {
        exercises.push({
          key: exercise.key,
          ok: false,
          ms: Math.round(performance.now() - at),
          message: (error as Error).message,
        })
      }
    }
  } finally {
    await dropLabDatabases([built.database, ...built.copies])
  }
  // the learner practises on PGlite: its answers must be the ones grading expects
  const dataset = await practiceDataset({ sql: folder.datasetSql, name: definition.dataset, files: folder.dataFiles })
  for (const { key, message } of await compareEngines(dataset, solved)) {
    const checked = exercises.find((e) => e.key === key)
    if (checked) Object.assign(checked, { ok: false, message })
    else exercises.push({ key, ok: false, ms: 0, message })
  }
  const problems = exercises.filter((e) => !e.ok).map((e) => `${e.key}: ${e.message}`)
  return { ok: problems.length === 0, title: definition.title, buildMs, exercises, problems }
}

type LabSummary = {
  id: string
  title: string
  courseId: string
  courseTitle: string
  visible: boolean
  exercises: number
  builtAt: string | null
}

/** Every lab, by course and place, for the admin side and `portal labs list`. */
export async function listLabs(actor: Actor, filter: { courseId?: string } = {}): Promise<LabSummary[]> {
  requirePermission(actor, 'read:course:any')
  const rows = await select<{
    id: string
    title: string
    course_id: string
    course_title: string
    visibility: boolean
    exercises: number
    built_at: Date | null
  }>(
    `SELECT l.id, l.title, l.course_id, c.title AS course_title, l.visibility, l.built_at,
       (SELECT count(*)::int FROM lab_exercises e WHERE e.lab_id = l.id) AS exercises
     FROM labs l JOIN courses c ON c.id = l.course_id
     WHERE ($1::uuid IS NULL OR l.course_id = $1)
     ORDER BY c.title, l.order_id, l.title`,
    [filter.courseId && isUuid(filter.courseId) ? filter.courseId : null],
  )
  return rows.map((r) => ({
    id: r.id,
    title: r.title,
    courseId: r.course_id,
    courseTitle: r.course_title,
    visible: r.visibility,
    exercises: r.exercises,
    builtAt: r.built_at?.toISOString() ?? null,
  }))
}

/** A lab as its author's folder: what `portal labs export` writes back. */
export async function labFolder(actor: Actor, id: string): Promise<LabFolder> {
  requirePermission(actor, 'update:content')
  const [lab] = isUuid(id)
    ? await select<{ title: string; description: string; minutes: number; dataset_name: string; dataset_sql: string }>(
        'SELECT title, description, minutes, dataset_name, dataset_sql FROM labs WHERE id = $1',
        [id],
      )
    : []
  if (!lab) throw notFound(`No lab with the id ${id}.`)
  const exercises = await select<{
    key: string
    title: string
    prompt: string
    solution: string
    check_kind: CheckKind
    verify: string[]
    steps: Step[] | null
    order_rule: GradedExercise['order']
    column_rule: GradedExercise['columns']
    allow: GradedExercise['allow']
    points: number
    hints: string[]
    plan_rules: PlanRules | null
  }>('SELECT * FROM lab_exercises WHERE lab_id = $1 ORDER BY position', [id])
  const files = await select<{ name: string; content: Buffer }>(
    'SELECT name, content FROM lab_files WHERE lab_id = $1 ORDER BY name',
    [id],
  )
  return {
    definition: {
      title: lab.title,
      description: lab.description,
      minutes: lab.minutes,
      dataset: lab.dataset_name,
      exercises: exercises.map((e) => ({
        key: e.key,
        title: e.title,
        prompt: e.prompt,
        solution: e.solution,
        check: e.check_kind,
        ...(e.check_kind === 'state' ? { verify: e.verify } : {}),
        ...(e.plan_rules ? { plan: e.plan_rules } : {}),
        ...(e.steps ? { steps: e.steps } : {}),
        order: e.order_rule,
        columns: e.column_rule,
        allow: [...e.allow],
        points: e.points,
        hints: e.hints,
      })),
    },
    datasetSql: lab.dataset_sql,
    dataFiles: files,
  }
}

// --- Attempts ---

const FOREIGN_KEY_VIOLATION = '23503'

type Attempt = Grading & { exercise: string; attempts: number; hints: string[] }

/**
 * A learner's attempt at one exercise: graded, kept (SQL, result, time, duration) and answered with what
 * differs and the hints the failed attempts so far have opened. A learner not assigned the course, or a
 * lab hidden from learners, is refused as a hidden video is.
 */
export async function attemptExercise(
  actor: Actor,
  raw: { labId: string; exercise: unknown; sql: unknown },
): Promise<Attempt> {
  if (!actor.id) throw forbidden('Lab attempts are made by a signed-in person.')
  const input = { labId: raw.labId, ...AttemptSchema.parse(raw) }
  const [lab] = isUuid(input.labId)
    ? await select<{ course_id: string; visibility: boolean; database: string | null; state_copies: string[] }>(
        'SELECT course_id, visibility, database, state_copies FROM labs WHERE id = $1',
        [input.labId],
      )
    : []
  if (!lab) throw notFound('No such lab.')
  const staff = can(actor, 'read:course:any')
  if (!(await canOpenCourse(actor, lab.course_id)) || (!lab.visibility && !staff))
    throw forbidden('This course is not assigned to you.')
  const [exercise] = await select<ExerciseRow>(
    `SELECT id, key, check_kind, verify, order_rule, column_rule, allow, ordered, expected, hints, plan_rules,
       plan_cost
     FROM lab_exercises WHERE lab_id = $1 AND key = $2`,
    [input.labId, input.exercise],
  )
  if (!exercise) throw notFound(`This lab has no exercise ${input.exercise}.`)
  if (!lab.database || !exercise.expected) throw conflict('This lab is being built; try again in a moment.')
  if (exercise.check_kind === 'sessions')
    throw invalid('This exercise is checked from its two sessions: run your statements there, then Check.')

  takeGradingSlot(actor.id, {
    mine: 'Your previous attempt is still being graded.',
    full: 'Many attempts are being graded right now; try again in a moment.',
  })
  let graded: Grading
  try {
    graded = await grade({ database: lab.database, copies: lab.state_copies }, toGraded(exercise), input.sql)
  } finally {
    giveGradingSlot(actor.id)
  }
  const kept = { columns: graded.columns, rows: graded.rows.slice(0, 20), total: graded.total }
  const [{ failed, attempts }] = await select<{ failed: number; attempts: number }>(
    `WITH kept AS (
       INSERT INTO lab_attempts (exercise_id, user_id, sql, passed, message, result, duration_ms, plan)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING id
     )
     SELECT count(*) FILTER (WHERE NOT passed)::int + (CASE WHEN $4 THEN 0 ELSE 1 END) AS failed,
            count(*)::int + 1 AS attempts
     FROM lab_attempts WHERE exercise_id = $1 AND user_id = $2`,
    [
      exercise.id,
      actor.id,
      input.sql,
      graded.passed,
      graded.message,
      JSON.stringify(kept),
      graded.ms,
      graded.plan ? JSON.stringify(graded.plan) : null,
    ],
  ).catch((error: unknown) => {
    // an import took the exercise away while the attempt was graded
    if (error instanceof pg.DatabaseError && error.code === FOREIGN_KEY_VIOLATION)
      throw conflict('This exercise changed while your attempt was graded; open the lab again.')
    throw error
  })
  return { ...graded, exercise: exercise.key, attempts, hints: exercise.hints.slice(0, failed) }
}

type ExerciseRow = {
  id: string
  key: string
  check_kind: CheckKind
  verify: string[]
  order_rule: GradedExercise['order']
  column_rule: GradedExercise['columns']
  allow: GradedExercise['allow']
  ordered: boolean
  expected: Expected | null
  hints: string[]
  plan_rules: PlanRules | null
  plan_cost: number | null
}

const toGraded = (row: ExerciseRow): GradedExercise => ({
  key: row.key,
  // a two-session exercise is refused before this: it is checked from its pair's log
  check: row.check_kind as GradedExercise['check'],
  verify: row.verify,
  order: row.order_rule,
  columns: row.column_rule,
  allow: row.allow,
  ordered: row.ordered,
  expected: row.expected!,
  ...(row.plan_rules ? { plan: { rules: row.plan_rules, cost: row.plan_cost ?? 0 } } : {}),
})

// --- What a learner (or the admin side) reads ---

type ExerciseState = { key: string; title: string; points: number; passed: boolean; attempts: number }

/** Labs a course shows: its visible ones to an assigned learner, every one to the admin side. */
async function openLabs(actor: Actor, where: { courseId?: string; labId?: string }) {
  const staff = can(actor, 'read:course:any')
  const rows = await select<{
    id: string
    title: string
    description: string
    minutes: number
    course_id: string
    tables: LabTable[]
    visibility: boolean
  }>(
    `SELECT id, title, description, minutes, course_id, tables, visibility FROM labs
     WHERE ($1::uuid IS NULL OR course_id = $1) AND ($2::uuid IS NULL OR id = $2)
     ORDER BY order_id, title`,
    [where.courseId ?? null, where.labId ?? null],
  )
  const courses = new Map<string, boolean>()
  const open: typeof rows = []
  for (const row of rows) {
    if (!courses.has(row.course_id)) courses.set(row.course_id, await canOpenCourse(actor, row.course_id))
    if (courses.get(row.course_id) && (row.visibility || staff)) open.push(row)
  }
  return open
}

/** Each exercise of these labs with the actor's own state: passed once, and how many attempts. */
async function exerciseStates(actor: Actor, labIds: string[]) {
  const rows = await select<
    ExerciseState & { lab_id: string; prompt: string; hints: string[]; failed: number; check_kind: CheckKind }
  >(
    `SELECT e.lab_id, e.key, e.title, e.prompt, e.points, e.hints, e.check_kind,
       coalesce(bool_or(a.passed), false) AS passed, count(a.id)::int AS attempts,
       (count(a.id) FILTER (WHERE NOT a.passed))::int AS failed
     FROM lab_exercises e
     LEFT JOIN lab_attempts a ON a.exercise_id = e.id AND a.user_id = $2
     WHERE e.lab_id = ANY($1)
     GROUP BY e.id ORDER BY e.position`,
    [labIds, actor.id],
  )
  return rows
}

/** The labs of a course for GET /api/labs: each with its exercises' state for the caller. */
export async function listCourseLabs(actor: Actor, courseId: string) {
  if (!isUuid(courseId)) throw invalid('courseId must be a course id.', { courseId: 'Must be a course id.' })
  if (!(await canOpenCourse(actor, courseId))) throw forbidden('This course is not assigned to you.')
  const labs = await openLabs(actor, { courseId })
  const exercises = await exerciseStates(
    actor,
    labs.map((l) => l.id),
  )
  return labs.map((lab) => ({
    id: lab.id,
    title: lab.title,
    courseId: lab.course_id,
    minutes: lab.minutes,
    exercises: exercises
      .filter((e) => e.lab_id === lab.id)
      .map(({ key, title, passed, attempts }) => ({ key, title, passed, attempts })),
  }))
}

/** One lab for its page and GET /api/labs/{labId}: the dataset's tables, each exercise with its state. */
export async function getLab(actor: Actor, labId: string) {
  const [lab] = isUuid(labId) ? await openLabs(actor, { labId }) : []
  if (!lab) {
    // a lab that exists in a course the caller may not open is refused as the course is; none is 404
    const [exists] = isUuid(labId) ? await select<{ id: string }>('SELECT id FROM labs WHERE id = $1', [labId]) : []
    if (exists) throw forbidden('This course is not assigned to you.')
    throw notFound('No such lab.')
  }
  const exercises = await exerciseStates(actor, [lab.id])
  return {
    id: lab.id,
    title: lab.title,
    description: lab.description,
    courseId: lab.course_id,
    minutes: lab.minutes,
    tables: lab.tables,
    exercises: exercises.map(({ key, title, prompt, points, passed, attempts, hints, failed, check_kind }) => ({
      key,
      title,
      check: check_kind,
      prompt,
      points,
      passed,
      attempts,
      // the hints failed attempts have opened so far
      hints: hints.slice(0, failed),
    })),
  }
}

type LabRebuild = { labs: number; failed: { title: string; reason: string }[] }

/**
 * Builds every lab's databases anew from the dataset the portal keeps (its SQL and files), as after a
 * restore: the names a backup carried belong to the database server it came from. The exercises' answers
 * stay as they were (the same dataset gives the same answers). A lab that cannot be built is left unbuilt —
 * its page says it is being built, and an import of its folder builds it — and is named with its reason.
 */
export async function rebuildLabDatabases(actor: Actor): Promise<LabRebuild> {
  requirePermission(actor, 'update:content')
  const labs = await select<{
    id: string
    title: string
    dataset_name: string
    dataset_sql: string
    state: boolean
    sessions: boolean
  }>(
    `SELECT l.id, l.title, l.dataset_name, l.dataset_sql,
            EXISTS (SELECT 1 FROM lab_exercises e WHERE e.lab_id = l.id AND e.check_kind IN ('state', 'plan')) AS state,
            EXISTS (SELECT 1 FROM lab_exercises e WHERE e.lab_id = l.id AND e.check_kind = 'sessions') AS sessions
       FROM labs l ORDER BY l.created_at, l.id`,
    [],
  )
  const failed: LabRebuild['failed'] = []
  for (const lab of labs) {
    const files = await select<{ name: string; content: Buffer }>(
      'SELECT name, content FROM lab_files WHERE lab_id = $1 ORDER BY name',
      [lab.id],
    )
    try {
      const built = await buildLabDatabases(
        { sql: lab.dataset_sql, name: lab.dataset_name, files },
        lab.state ? STATE_COPIES : 0,
        { sessions: lab.sessions },
      )
      await select('UPDATE labs SET database = $2, state_copies = $3, built_at = now() WHERE id = $1 RETURNING id', [
        lab.id,
        built.database,
        built.copies,
      ])
    } catch (error) {
      await select("UPDATE labs SET database = NULL, state_copies = '{}', built_at = NULL WHERE id = $1 RETURNING id", [
        lab.id,
      ])
      failed.push({ title: lab.title, reason: error instanceof Error ? error.message.split('\n')[0] : String(error) })
    }
  }
  return { labs: labs.length, failed }
}
