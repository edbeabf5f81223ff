import { randomBytes } from 'node:crypto'
import { hashPassword } from '#app/modules/auth/password.server.ts'
import { ROLE, type RoleId } from '#app/modules/auth/roles.ts'
import { toSessionUser, type SessionUser } from '#app/modules/auth/service.server.ts'
import { issueToken } from '#app/modules/auth/token.server.ts'
import { parseLabYaml } from '#app/modules/labs/format.ts'
import { db, sequelize } from '#db/client.ts'

// Test data, made through the models: small functions with narrow arguments and unique values.

export const PASSWORD = 'Test-pass1!'
let passwordHash: Promise<string> | undefined
const unique = () => randomBytes(4).toString('hex')

export async function makeUser(
  options: { roleId?: RoleId; userName?: string; email?: string; firstName?: string; lastName?: string } = {},
): Promise<SessionUser & { token: string }> {
  const { User } = await db()
  passwordHash ??= hashPassword(PASSWORD)
  const id = unique()
  const user = await User.create({
    firstName: options.firstName ?? 'Tessa',
    lastName: options.lastName ?? 'Tester',
    userName: options.userName ?? `user${id}`,
    email: options.email ?? `user${id}@example.com`,
    passwordHash: await passwordHash,
    roleId: options.roleId ?? ROLE.learner,
  })
  return { ...toSessionUser(user), token: await issueToken(user) }
}

export const makeLearner = () => makeUser({ roleId: ROLE.learner })
export const makeAdmin = () => makeUser({ roleId: ROLE.admin })
export const makeSuperAdmin = () => makeUser({ roleId: ROLE.superAdmin })
export const makeCoach = () => makeUser({ roleId: ROLE.coach })

/**
 * What the Create New User form (and the /api's register call) takes for a new person, with a unique
 * username and email; nothing is created.
 */
export function personFields(overrides: Record<string, string> = {}) {
  const id = unique()
  return {
    firstName: 'Newton',
    lastName: 'Person',
    userName: `newton${id}`,
    email: `newton${id}@example.com`,
    password: 'Welcome-1st!',
    confirmPassword: 'Welcome-1st!',
    ...overrides,
  }
}

type Role = 'learner' | 'coach' | 'admin' | 'superAdmin'
const ROLE_IDS = { learner: ROLE.learner, coach: ROLE.coach, admin: ROLE.admin, superAdmin: ROLE.superAdmin }

/** One new account of each role named. */
export async function makePeople<R extends Role>(...roles: R[]) {
  const people = {} as Record<R, Awaited<ReturnType<typeof makeUser>>>
  for (const role of roles) people[role] = await makeUser({ roleId: ROLE_IDS[role] })
  return people
}

type VideoSpec = { title?: string; duration?: number | null; visibility?: boolean; preview?: boolean; after?: number[] }

/** A course with videos in the given order; `after` lists indexes of prerequisite videos. */
export async function makeCourse(options: { title?: string; videos?: VideoSpec[] } = {}) {
  const { Course, ContentEntry, VideoPrerequisite } = await db()
  const course = await Course.create({
    title: options.title ?? `Course ${unique()}`,
    description: 'A course made by a test.',
  })
  const videos: { id: string; title: string; duration: number | null }[] = []
  for (const [orderId, spec] of (options.videos ?? []).entries()) {
    const video = await ContentEntry.create({
      courseId: course.id,
      kind: 'video',
      orderId,
      title: spec.title ?? `Video ${orderId + 1}`,
      description: 'A video made by a test.',
      embedUrl: `https://www.youtube-nocookie.com/embed/test${orderId}`,
      duration: spec.duration === undefined ? 100 : spec.duration,
      visibility: spec.visibility ?? true,
      preview: spec.preview ?? false,
    })
    for (const index of spec.after ?? [])
      await VideoPrerequisite.create({ videoId: video.id, prerequisiteId: videos[index].id, courseId: course.id })
    videos.push({ id: video.id, title: video.title, duration: video.duration })
  }
  return { id: course.id, title: course.title, videos }
}

export async function assignCourse(userId: string, courseId: string) {
  const { CourseAssignment } = await db()
  await CourseAssignment.create({ userId, courseId })
}

export async function makeProgram(courseIds: string[]) {
  const { Program, ProgramCourse } = await db()
  const program = await Program.create({ title: `Program ${unique()}` })
  for (const [position, courseId] of courseIds.entries())
    await ProgramCourse.create({ programId: program.id, courseId, position })
  return { id: program.id }
}

export async function assignProgram(userId: string, programId: string) {
  const { ProgramAssignment } = await db()
  await ProgramAssignment.create({ userId, programId })
}

/** A progress record as if `watched` seconds had been played. */
export async function recordWatched(
  userId: string,
  courseId: string,
  video: { id: string; duration: number | null },
  watched: number,
) {
  const { VideoProgress } = await db()
  const duration = video.duration ?? watched
  await VideoProgress.create({
    userId,
    videoId: video.id,
    courseId,
    watchedSeconds: watched,
    lastPosition: watched,
    completed: watched >= 0.9 * duration,
  })
}

/**
 * A lab of the course with these exercises, as an import leaves its rows (not built: it cannot be attempted
 * through the service, and needs no sandbox). The exercises' ids in the same order.
 */
export async function makeLab(
  courseId: string,
  options: {
    title?: string
    minutes?: number
    visible?: boolean
    order?: number
    /** an exercise's title (its key e1, e2 …), or its key (its title too) and points */
    exercises?: (string | LabExercise)[]
  } = {},
) {
  const sql = await sequelize()
  const title = options.title ?? `Lab ${unique()}`
  const [[lab]] = (await sql.query(
    `INSERT INTO labs (course_id, title, minutes, dataset_name, dataset_sql, visibility, order_id)
     VALUES ($1, $2, $3, 'data.sql', '', $4, $5) RETURNING id`,
    { bind: [courseId, title, options.minutes ?? 15, options.visible ?? true, options.order ?? 0] },
  )) as [{ id: string }[], unknown]
  const exercises: { id: string; title: string }[] = []
  for (const [position, exercise] of (options.exercises ?? ['Exercise 1']).entries()) {
    const spec = typeof exercise === 'string' ? { key: `e${position + 1}`, title: exercise } : exercise
    exercises.push({ id: await addLabExercise(lab.id, spec, position), title: spec.title ?? spec.key })
  }
  return { id: lab.id, title, exercises }
}

type LabExercise = { key: string; title?: string; points?: number }

/** An exercise of a lab, as an import writes it (a result check of `SELECT 1`); its id. */
export async function addLabExercise(labId: string, exercise: LabExercise, position = 9) {
  const [[row]] = (await (
    await sequelize()
  ).query(
    `INSERT INTO lab_exercises (lab_id, key, position, title, prompt, solution, check_kind, order_rule, column_rule,
       allow, points)
     VALUES ($1, $2, $3, $4, 'A prompt.', 'SELECT 1', 'result', 'auto', 'names', '{select}', $5) RETURNING id`,
    { bind: [labId, exercise.key, position, exercise.title ?? exercise.key, exercise.points ?? 1] },
  )) as [{ id: string }[], unknown]
  return row.id
}

/** A lab folder as readLabFolder reads it, from the text of its lab.yaml and its dataset's SQL (no CSV files). */
export function labFolderOf(yaml: string, datasetSql: string) {
  const parsed = parseLabYaml(yaml)
  if (!parsed.ok) throw new Error(parsed.errors.join('; '))
  return { definition: parsed.definition, datasetSql, dataFiles: [] }
}

/** A graded attempt as the lab service keeps it, made at `at` (an ISO time; now by default). */
export async function recordLabAttempt(userId: string, exerciseId: string, passed: boolean, at?: string) {
  await (
    await sequelize()
  ).query(
    `INSERT INTO lab_attempts (exercise_id, user_id, sql, passed, message, duration_ms, created_at)
     VALUES ($1, $2, 'SELECT 1', $3, '', 3, COALESCE($4::timestamptz, now()))`,
    { bind: [exerciseId, userId, passed, at ?? null] },
  )
}

/**
 * An uploaded file as the upload calls leave it: a body in storage and a row, attached to nothing. A
 * certificate signature is a real PNG (the settings check that its PDF can draw it); other images only
 * start like one.
 */
export async function makeStoredFile(
  purpose: 'course_image' | 'program_image' | 'document' | 'assessment' | 'certificate_signature' = 'document',
  options: { name?: string; contentType?: string; uploadedBy?: string | null } = {},
) {
  const { storeFile } = await import('#app/modules/files/service.server.ts')
  const { pngBytes } = await import('./fixtures/files.ts')
  const image = purpose === 'course_image' || purpose === 'program_image' || purpose === 'certificate_signature'
  return storeFile({
    purpose,
    name: options.name ?? (image ? 'cover.png' : 'notes.pdf'),
    contentType: options.contentType ?? (image ? 'image/png' : 'application/pdf'),
    body:
      purpose === 'certificate_signature'
        ? pngBytes({ width: 40, height: 12 })
        : Buffer.from(image ? '\x89PNG\r\n\x1a\n test image' : '%PDF-1.7 test document'),
    uploadedBy: options.uploadedBy ?? null,
  })
}

/** A document or scenario entry with its own stored file. */
export async function makeDocument(
  courseId: string,
  options: {
    kind?: 'document' | 'scenario'
    orderId?: number
    visibility?: boolean
    name?: string
    contentType?: string
  } = {},
) {
  const { ContentEntry } = await db()
  const file = await makeStoredFile('document', { name: options.name, contentType: options.contentType })
  const entry = await ContentEntry.create({
    courseId,
    kind: options.kind ?? 'document',
    orderId: options.orderId ?? 0,
    title: file.name,
    fileKey: file.key,
    visibility: options.visibility ?? true,
  })
  return { id: entry.id, fileKey: file.key }
}
