import { QueryTypes } from 'sequelize'
import { query, sequelize, sql, transaction } from '#db/client.ts'
import { requirePermission } from '../auth/permissions.ts'
import { ROLE, type Actor } from '../auth/roles.ts'
import { findCourseByIdentifier } from '../courses/catalogue.server.ts'
import { invalid, isServiceError, notFound, ServiceError } from '../errors.ts'
import { readMultipart } from '../files/multipart.server.ts'
import { isUuid } from '../ids.ts'
import { LAB_FILES_LIMITS, readLabZip } from './folder.server.ts'
import type { PlanNode, RuleOutcome } from './plan.ts'
import { dropLabDatabases } from './sandbox.server.ts'
import { importLab } from './service.server.ts'

// The admin side of SQL labs: a course's labs on its page (uploaded as a zip, shown or hidden, ordered,
// deleted), and each lab's results, learner by learner, with every attempt and a CSV of them all.
// Changing needs update:content; reading read:course:any (admins and coaches).

/** The form field that carries the lab's zip, where its refusals are shown. */
const LAB_ZIP_FIELD = 'labZip'

export type CourseLab = {
  id: string
  title: string
  minutes: number
  exercises: number
  visible: boolean
  builtAt: string | null
  orderId: number
}

const COURSE_LABS = sql(`
  SELECT l.id, l.title, l.minutes, l.visibility, l.built_at, l.order_id,
    (SELECT count(*)::int FROM lab_exercises e WHERE e.lab_id = l.id) AS exercises
  FROM labs l WHERE l.course_id = :courseId
  ORDER BY l.order_id, l.title`)

/** A course's labs in their order, for its admin page: hidden ones too. */
export async function courseLabs(actor: Actor, courseId: string): Promise<CourseLab[]> {
  requirePermission(actor, 'read:course:any')
  if (!isUuid(courseId)) throw notFound('No such course.')
  const rows = await query<{
    id: string
    title: string
    minutes: number
    visibility: boolean
    built_at: Date | null
    order_id: number
    exercises: number
  }>(COURSE_LABS, { courseId })
  return rows.map((r) => ({
    id: r.id,
    title: r.title,
    minutes: r.minutes,
    exercises: r.exercises,
    visible: r.visibility,
    builtAt: r.built_at?.toISOString() ?? null,
    orderId: r.order_id,
  }))
}

// --- Upload ---

/** A zip somewhat larger than what it may unpack to is still refused by readLabZip; beyond that, unread. */
const MAX_ZIP_BYTES = LAB_FILES_LIMITS.bytes + 1024 * 1024
const FORM_OVERHEAD_BYTES = 64 * 1024

const zipRefusal = (status: ServiceError['status'], message: string) =>
  new ServiceError(status, message, { [LAB_ZIP_FIELD]: message })

/**
 * The zip of an "Add Lab" form posted as multipart, held in memory (a lab is at most 50 MB, and is read
 * whole to be judged): its bytes and name. Refusals name the file field.
 */
export async function receiveLabZip(actor: Actor, request: Request): Promise<{ name: string; bytes: Uint8Array }> {
  requirePermission(actor, 'update:content')
  const contentType = request.headers.get('Content-Type') ?? ''
  if (!/^multipart\/form-data\s*;.*boundary=/i.test(contentType) || !request.body)
    throw zipRefusal(400, 'Send the zip as multipart/form-data.')
  const declared = Number(request.headers.get('Content-Length') ?? NaN)
  const tooLarge = () => zipRefusal(413, `The zip is larger than ${MAX_ZIP_BYTES / (1024 * 1024)} MB.`)
  if (Number.isFinite(declared) && declared > MAX_ZIP_BYTES + FORM_OVERHEAD_BYTES) throw tooLarge()
  let zip: { name: string; bytes: Uint8Array } | undefined
  try {
    await readMultipart(request.body, contentType, {
      onField: () => undefined,
      maxFieldBytes: FORM_OVERHEAD_BYTES,
      onFile: async ({ field, filename, data }) => {
        const chunks: Buffer[] = []
        let size = 0
        for await (const chunk of data as AsyncIterable<Buffer>) {
          if (zip || field !== LAB_ZIP_FIELD || !filename) continue
          size += chunk.byteLength
          if (size > MAX_ZIP_BYTES) throw tooLarge()
          chunks.push(chunk)
        }
        if (!zip && field === LAB_ZIP_FIELD && filename && size > 0)
          zip = { name: filename, bytes: new Uint8Array(Buffer.concat(chunks)) }
      },
    })
  } catch (error) {
    if (isServiceError(error)) throw error
    throw zipRefusal(400, 'The upload could not be read; please try again.')
  }
  if (!zip) throw zipRefusal(400, 'Choose the zip of a lab folder.')
  if (!/\.zip$/i.test(zip.name)) throw zipRefusal(415, 'Only a .zip of a lab folder is accepted.')
  return zip
}

/**
 * A lab's zip read and imported into a course: created, or the course's lab of the same title updated
 * (attempts at the exercises whose key stays are kept). A bad zip, a lab.yaml problem, a dataset or a
 * solution that fails is refused with its message at the file field.
 */
export async function uploadLab(actor: Actor, input: { courseId: string; bytes: Uint8Array }) {
  requirePermission(actor, 'update:content')
  const course = await findCourseByIdentifier(input.courseId)
  try {
    const folder = readLabZip(input.bytes)
    return await importLab(actor, { folder, course: course.id })
  } catch (error) {
    if (isServiceError(error) && error.status === 400 && !error.errors)
      throw new ServiceError(400, error.message, { [LAB_ZIP_FIELD]: error.message }, { cause: error })
    throw error
  }
}

/** What the toast says after an upload. */
export function uploadedMessage(lab: Awaited<ReturnType<typeof uploadLab>>): string {
  const { kept, added, removed } = lab.exercises
  if (lab.created) return `Lab "${lab.title}" created with ${plural(added.length, 'exercise')}.`
  const parts = [`${kept.length} kept`, `${added.length} added`, `${removed.length} removed`]
  return `Lab "${lab.title}" updated: exercises ${parts.join(', ')}; learners' attempts are kept.`
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`

// --- Show, hide, order, delete ---

const LAB_OF_COURSE = sql('SELECT id, title FROM labs WHERE id = :labId AND course_id = :courseId')

async function labOfCourse(courseId: string, labId: string) {
  const [lab] =
    isUuid(courseId) && isUuid(labId)
      ? await query<{ id: string; title: string }>(LAB_OF_COURSE, { labId, courseId })
      : []
  if (!lab) throw notFound('This course has no such lab.')
  return lab
}

const SET_VISIBILITY = sql('UPDATE labs SET visibility = :visible, updated_at = now() WHERE id = :labId')

/** Shows a lab to the course's learners, or hides it from them. */
export async function setLabVisibility(
  actor: Actor,
  input: { courseId: string; labId: string; visible: boolean },
): Promise<{ title: string; visible: boolean }> {
  requirePermission(actor, 'update:content')
  const lab = await labOfCourse(input.courseId, input.labId)
  await query(SET_VISIBILITY, { labId: lab.id, visible: input.visible })
  return { title: lab.title, visible: input.visible }
}

const DELETE_LAB = sql(
  'DELETE FROM labs WHERE id = :labId AND course_id = :courseId RETURNING title, database, state_copies',
)

/**
 * Deletes a lab with its exercises and every attempt at them; its sandbox databases are dropped once the
 * row is gone (a learner who opens it then meets a 404, never a lab without its database).
 */
export async function deleteLab(
  actor: Actor,
  input: { courseId: string; labId: string },
): Promise<{ title: string; databases: string[] }> {
  requirePermission(actor, 'update:content')
  const lab = await labOfCourse(input.courseId, input.labId)
  const [deleted] = await query<{ title: string; database: string | null; state_copies: string[] }>(DELETE_LAB, {
    labId: lab.id,
    courseId: input.courseId,
  })
  if (!deleted) throw notFound('This course has no such lab.')
  const databases = [deleted.database, ...deleted.state_copies].filter((d): d is string => Boolean(d))
  await dropLabDatabases(databases)
  return { title: deleted.title, databases }
}

/** Puts a course's labs in the order given: every lab of the course, each once, first to last. */
export async function reorderLabs(actor: Actor, input: { courseId: string; ids: string[] }): Promise<void> {
  requirePermission(actor, 'update:content')
  if (!isUuid(input.courseId)) throw notFound('No such course.')
  await transaction(async (tx) => {
    const db = await sequelize()
    const current = await db.query<{ id: string }>(
      'SELECT id FROM labs WHERE course_id = $1 ORDER BY order_id, title FOR UPDATE',
      { bind: [input.courseId], type: QueryTypes.SELECT, transaction: tx },
    )
    const ids = new Set(current.map((r) => r.id))
    const posted = new Set(input.ids)
    if (posted.size !== input.ids.length || posted.size !== ids.size || input.ids.some((id) => !ids.has(id)))
      throw invalid('The order must list every lab of the course once; reload the page and try again.')
    await db.query(
      `UPDATE labs l SET order_id = o.position - 1, updated_at = now()
       FROM unnest($1::uuid[]) WITH ORDINALITY AS o(id, position) WHERE l.id = o.id`,
      { bind: [input.ids], transaction: tx },
    )
  })
}

// --- Results ---

type LabHeading = { id: string; title: string; courseId: string; courseTitle: string; exercises: number }

const LAB_HEADING = sql(`
  SELECT l.id, l.title, l.course_id, c.title AS course_title,
    (SELECT count(*)::int FROM lab_exercises e WHERE e.lab_id = l.id) AS exercises
  FROM labs l JOIN courses c ON c.id = l.course_id WHERE l.id = :labId`)

async function labHeading(labId: string): Promise<LabHeading> {
  const [lab] = isUuid(labId)
    ? await query<{ id: string; title: string; course_id: string; course_title: string; exercises: number }>(
        LAB_HEADING,
        { labId },
      )
    : []
  if (!lab) throw notFound('No such lab.')
  return {
    id: lab.id,
    title: lab.title,
    courseId: lab.course_id,
    courseTitle: lab.course_title,
    exercises: lab.exercises,
  }
}

type LearnerResult = {
  userId: string
  name: string
  userName: string
  email: string
  assigned: boolean
  passed: number
  exercises: number
  attempts: number
  lastAttemptAt: string | null
}

/**
 * Learners assigned the course (directly or by a program: ASSIGNED_COURSE_IDS in courses/access.server.ts
 * asked the other way round, by course), and anyone with an attempt at the lab.
 */
const LAB_RESULTS = sql(`
  WITH attempts AS (
    SELECT a.user_id, a.exercise_id, a.passed, a.created_at
    FROM lab_attempts a JOIN lab_exercises e ON e.id = a.exercise_id
    WHERE e.lab_id = :labId
  ),
  people AS (
    SELECT u.id, true AS assigned FROM users u
    WHERE u.role_id = :learnerRole AND u.id IN (
      SELECT user_id FROM course_assignments WHERE course_id = :courseId
      UNION
      SELECT pa.user_id FROM program_assignments pa
      JOIN program_courses pc ON pc.program_id = pa.program_id WHERE pc.course_id = :courseId)
    UNION ALL
    SELECT DISTINCT a.user_id, false FROM attempts a
  ),
  each_person AS (SELECT id, bool_or(assigned) AS assigned FROM people GROUP BY id)
  SELECT u.id, u.first_name, u.last_name, u.user_name, u.email, p.assigned,
    (SELECT count(DISTINCT a.exercise_id)::int FROM attempts a WHERE a.user_id = u.id AND a.passed) AS passed,
    (SELECT count(*)::int FROM attempts a WHERE a.user_id = u.id) AS attempts,
    (SELECT max(a.created_at) FROM attempts a WHERE a.user_id = u.id) AS last_attempt_at
  FROM each_person p JOIN users u ON u.id = p.id
  ORDER BY lower(u.first_name), lower(u.last_name), u.user_name`)

type ResultRow = {
  id: string
  first_name: string
  last_name: string
  user_name: string
  email: string
  assigned: boolean
  passed: number
  attempts: number
  last_attempt_at: Date | null
}

const fullName = (r: { first_name: string; last_name: string }) => `${r.first_name} ${r.last_name}`.trim()

/** A lab's results, learner by learner: exercises passed of the lab's, attempts, the last one's time. */
export async function labResults(actor: Actor, labId: string): Promise<{ lab: LabHeading; learners: LearnerResult[] }> {
  requirePermission(actor, 'read:course:any')
  const lab = await labHeading(labId)
  const rows = await query<ResultRow>(LAB_RESULTS, { labId: lab.id, courseId: lab.courseId, learnerRole: ROLE.learner })
  return {
    lab,
    learners: rows.map((r) => ({
      userId: r.id,
      name: fullName(r),
      userName: r.user_name,
      email: r.email,
      assigned: r.assigned,
      passed: r.passed,
      exercises: lab.exercises,
      attempts: r.attempts,
      lastAttemptAt: r.last_attempt_at?.toISOString() ?? null,
    })),
  }
}

type LabAttemptRow = {
  id: string
  exercise: string
  exerciseTitle: string
  passed: boolean
  message: string
  sql: string
  durationMs: number
  createdAt: string
  /** a plan exercise's attempt: the plan of its final query and each rule's outcome */
  plan: KeptPlan | null
}

type KeptPlan = { tree: PlanNode; rules: RuleOutcome[] }

const LAB_ATTEMPTS = sql(`
  SELECT a.id, e.key, e.title, a.passed, a.message, a.sql, a.duration_ms, a.created_at, a.plan,
    u.id AS user_id, u.first_name, u.last_name, u.user_name, u.email
  FROM lab_attempts a
  JOIN lab_exercises e ON e.id = a.exercise_id
  JOIN users u ON u.id = a.user_id
  WHERE e.lab_id = :labId AND (:userId::uuid IS NULL OR a.user_id = :userId)
  ORDER BY lower(u.first_name), lower(u.last_name), u.user_name, a.created_at, e.position`)

type AttemptRow = {
  id: string
  key: string
  title: string
  passed: boolean
  message: string
  sql: string
  duration_ms: number
  created_at: Date
  plan: KeptPlan | null
  user_id: string
  first_name: string
  last_name: string
  user_name: string
  email: string
}

const toAttempt = (r: AttemptRow): LabAttemptRow => ({
  id: r.id,
  exercise: r.key,
  exerciseTitle: r.title,
  passed: r.passed,
  message: r.message,
  sql: r.sql,
  durationMs: r.duration_ms,
  createdAt: r.created_at.toISOString(),
  plan: r.plan,
})

/** One learner's attempts at a lab, oldest first. */
export async function labAttempts(actor: Actor, labId: string, userId: string): Promise<LabAttemptRow[]> {
  requirePermission(actor, 'read:course:any')
  const lab = await labHeading(labId)
  if (!isUuid(userId)) throw notFound('No such learner.')
  return (await query<AttemptRow>(LAB_ATTEMPTS, { labId: lab.id, userId })).map(toAttempt)
}

/** The columns of a lab's results export, a row per attempt. */
export const LAB_EXPORT_HEADER = [
  'learner',
  'username',
  'email',
  'exercise',
  'exercise title',
  'passed',
  'message',
  'duration ms',
  'attempted at',
  'sql',
] as const

type LabExportRow = LabAttemptRow & { name: string; userName: string; email: string }

/** Every attempt at a lab, learner by learner, for its CSV export; the lab's title names the file. */
export async function labExportRows(actor: Actor, labId: string): Promise<{ lab: LabHeading; rows: LabExportRow[] }> {
  requirePermission(actor, 'read:course:any')
  const lab = await labHeading(labId)
  const rows = await query<AttemptRow>(LAB_ATTEMPTS, { labId: lab.id, userId: null })
  return {
    lab,
    rows: rows.map((r) => ({ ...toAttempt(r), name: fullName(r), userName: r.user_name, email: r.email })),
  }
}

/** A row of the export as its cells, in LAB_EXPORT_HEADER's order. */
export const labExportCells = (r: LabExportRow) => [
  r.name,
  r.userName,
  r.email,
  r.exercise,
  r.exerciseTitle,
  r.passed ? 'yes' : 'no',
  r.message,
  r.durationMs,
  r.createdAt,
  r.sql,
]
