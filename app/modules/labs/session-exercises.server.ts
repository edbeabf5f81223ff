import pg from 'pg'
import { select } from '#db/client.ts'
import { can } from '../auth/permissions.ts'
import type { Actor } from '../auth/roles.ts'
import { canOpenCourse } from '../courses/access.server.ts'
import { conflict, forbidden, invalid, notFound } from '../errors.ts'
import { isUuid } from '../ids.ts'
import type { SessionName, StatementKind, Step } from './schema.ts'
import { closePair, logText, openPair, pairLog, pairState, runInPair, type PairView } from './sessions.server.ts'
import { checkSteps } from './steps.ts'

// A learner's two-session exercise: the pair opened, its sessions run, and Check, which grades the pair's log
// against the exercise's steps and keeps the attempt (the log in words as its SQL, for admins to read).

type SessionsExercise = {
  lab: { id: string; database: string }
  exercise: { id: string; key: string; allow: StatementKind[]; steps: Step[]; hints: string[] }
}

/** A lab the actor may work in, refused as an attempt at any of its exercises would be. */
async function openLab(actor: Actor, labId: string) {
  if (!actor.id) throw forbidden('Lab attempts are made by a signed-in person.')
  const [lab] = isUuid(labId)
    ? await select<{ course_id: string; visibility: boolean; database: string | null }>(
        'SELECT course_id, visibility, database FROM labs WHERE id = $1',
        [labId],
      )
    : []
  if (!lab) throw notFound('No such lab.')
  if (!(await canOpenCourse(actor, lab.course_id)) || (!lab.visibility && !can(actor, 'read:course:any')))
    throw forbidden('This course is not assigned to you.')
  return lab
}

/** A two-session exercise the actor may work on, refused as an attempt at any exercise would be. */
async function sessionsExercise(
  actor: Actor,
  labId: string,
  key: unknown,
  options: { anyCheck?: boolean } = {},
): Promise<SessionsExercise> {
  if (typeof key !== 'string' || key === '') throw invalid('exercise is required.', { exercise: 'Required.' })
  const lab = await openLab(actor, labId)
  const [exercise] = await select<{
    id: string
    key: string
    check_kind: string
    allow: StatementKind[]
    steps: Step[] | null
    hints: string[]
  }>('SELECT id, key, check_kind, allow, steps, hints FROM lab_exercises WHERE lab_id = $1 AND key = $2', [labId, key])
  if (!exercise) throw notFound(`This lab has no exercise ${key}.`)
  if ((exercise.check_kind !== 'sessions' || !exercise.steps) && !options.anyCheck)
    throw invalid(`Exercise ${key} is not worked in two sessions.`)
  if (!lab.database) throw conflict('This lab is being built; try again in a moment.')
  return { lab: { id: labId, database: lab.database }, exercise: { ...exercise, steps: exercise.steps ?? [] } }
}

const SESSION_NAMES: readonly string[] = ['A', 'B']

/** Opens (or opens again: Start over) the actor's pair for a two-session exercise, closing any pair they had. */
export async function startSessions(actor: Actor, labId: string, exercise: unknown): Promise<PairView> {
  const found = await sessionsExercise(actor, labId, exercise)
  return openPair(actor.id!, found.lab, found.exercise)
}

/** Runs one statement in session A or B of the actor's pair. */
export async function runSession(
  actor: Actor,
  labId: string,
  input: { exercise: unknown; session: unknown; sql: unknown },
): Promise<PairView> {
  const { exercise } = await sessionsExercise(actor, labId, input.exercise)
  if (typeof input.session !== 'string' || !SESSION_NAMES.includes(input.session))
    throw invalid('session must be A or B.', { session: 'Must be A or B.' })
  if (typeof input.sql !== 'string' || input.sql.trim() === '')
    throw invalid('Write an SQL statement first.', { sql: 'Write an SQL statement first.' })
  return runInPair(actor.id!, { labId, exercise: exercise.key }, input.session as SessionName, input.sql)
}

/**
 * The actor's pair for this exercise as the page shows it, or null when none is open (as for an exercise that is
 * not worked in two sessions: none can be).
 */
export async function sessionsView(actor: Actor, labId: string, exercise: unknown): Promise<PairView | null> {
  // without an exercise: the actor's pair in this lab, whichever exercise it is for
  if (exercise === undefined || exercise === '') {
    await openLab(actor, labId)
    const keys = await select<{ key: string }>(
      "SELECT key FROM lab_exercises WHERE lab_id = $1 AND check_kind = 'sessions' ORDER BY position",
      [labId],
    )
    for (const { key } of keys) {
      const open = await pairState(actor.id!, { labId, exercise: key })
      if (open) return open
    }
    return null
  }
  const found = await sessionsExercise(actor, labId, exercise, { anyCheck: true })
  if (found.exercise.steps.length === 0) return null
  return pairState(actor.id!, { labId, exercise: found.exercise.key })
}

/**
 * Closes the actor's pair, whichever exercise it is for (leaving the page, Close); with `pair`, only the pair of that
 * id, so a page left late never closes a pair opened since.
 */
export async function closeSessions(actor: Actor, pair?: string): Promise<void> {
  if (actor.id) await closePair(actor.id, pair)
}

const FOREIGN_KEY_VIOLATION = '23503'

type SessionsCheck = {
  passed: boolean
  message: string
  /** the first step not met (0-based), when one is not */
  step?: number
  exercise: string
  attempts: number
  hints: string[]
}

/**
 * Check: grades the log of the actor's pair against the exercise's steps and keeps the attempt, with the log in
 * words as its SQL. The pair stays open, so the learner may go on and check again.
 */
export async function checkSessions(actor: Actor, labId: string, exerciseKey: unknown): Promise<SessionsCheck> {
  const { exercise } = await sessionsExercise(actor, labId, exerciseKey)
  const where = { labId, exercise: exercise.key }
  const log = await pairLog(actor.id!, where)
  if (log.length === 0) throw invalid('Run some statements in your two sessions first, then Check.')
  const started = performance.now()
  const verdict = checkSteps(exercise.steps, log)
  const message = verdict.passed
    ? `Passed: your sessions show all ${exercise.steps.length} ${exercise.steps.length === 1 ? 'step' : 'steps'}.`
    : verdict.message
  const [{ failed, attempts }] = await select<{ failed: number; attempts: number }>(
    `WITH kept AS (
       INSERT INTO lab_attempts (exercise_id, user_id, sql, passed, message, result, duration_ms)
       VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING id
     )
     SELECT count(*) FILTER (WHERE NOT passed)::int + (CASE WHEN $4 THEN 0 ELSE 1 END) AS failed,
            count(*)::int + 1 AS attempts
     FROM lab_attempts WHERE exercise_id = $1 AND user_id = $2`,
    [
      exercise.id,
      actor.id,
      await logText(actor.id!, where),
      verdict.passed,
      message,
      JSON.stringify({ columns: [], rows: [], total: log.length }),
      Math.round(performance.now() - started),
    ],
  ).catch((error: unknown) => {
    if (error instanceof pg.DatabaseError && error.code === FOREIGN_KEY_VIOLATION)
      throw conflict('This exercise changed while your sessions were checked; open the lab again.')
    throw error
  })
  return {
    passed: verdict.passed,
    message,
    ...(verdict.passed ? {} : { step: verdict.step }),
    exercise: exercise.key,
    attempts,
    hints: exercise.hints.slice(0, failed),
  }
}
