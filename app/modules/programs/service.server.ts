import { col, fn, Op, type Transaction } from 'sequelize'
import type { z } from 'zod'
import { db, mapRows, pipeQuery, type RowStream, sequelize, transaction } from '#db/client.ts'
import type { Program } from '#db/models/index.ts'
import { requirePermission } from '../auth/permissions.ts'
import { SYSTEM, type Actor } from '../auth/roles.ts'
import {
  applyCertificateSettings,
  certificateFieldsOf,
  type CertificateFieldsDto,
} from '../certificates/settings.server.ts'
import { fileInfo, type FileInfoDto } from '../content/dto.ts'
import { assertContentManager, orderedIds } from '../content/service.server.ts'
import { attachableImage } from '../courses/admin.server.ts'
import { conflict, forbidden, invalid, notFound } from '../errors.ts'
import { removeFileIfUnused } from '../files/service.server.ts'
import { isUuid } from '../ids.ts'
import { searchPattern } from '../search.ts'
import {
  DeleteProgramSchema,
  EditProgramSchema,
  NewProgramSchema,
  ProgramOrderSchema,
  type DeleteProgramInput,
  type EditProgramInput,
  type NewProgramInput,
  type ProgramOrderInput,
} from './schema.ts'

// Programs are bundles of ordered courses: assigning one gives all its courses.

type ProgramDto = {
  _id: string
  title: string
  description: string
  path: string
  learningPath: string
  duration: string
  price: number | null
  programImage: FileInfoDto | null
  courses: { _id: string; title: string }[]
  createdAt: string
  updatedAt: string
} & Partial<CertificateFieldsDto & { reminders: boolean }>

type ProgramQuery = {
  /** part of the name, any case */
  q?: string
  /** by name */
  dir?: 'asc' | 'desc'
  offset?: number
  /** undefined: the whole list (the /api's old client expects it) */
  limit?: number
}

/**
 * GET /api/program/getPrograms and the Program List: every signed-in user may browse programs,
 * searched by name, sorted by name and paged in the database.
 */
export async function listPrograms(
  actor: Actor,
  query: ProgramQuery = {},
): Promise<{ rows: ProgramDto[]; total: number }> {
  if (!actor.id && actor !== SYSTEM) throw forbidden()
  const { Program } = await db()
  const { search, pattern } = searchPattern(query.q)
  const where = search ? { title: { [Op.iLike]: pattern } } : {}
  const [page, total] = await Promise.all([
    Program.findAll({
      where,
      attributes: ['id'],
      order: [
        [fn('lower', col('title')), query.dir === 'desc' ? 'DESC' : 'ASC'],
        ['id', 'ASC'],
      ],
      offset: query.offset ?? 0,
      limit: query.limit,
    }),
    Program.count({ where }),
  ])
  return { rows: await programsById(page.map((program) => program.id)), total }
}

type ProgramRecord = {
  id: string
  title: string
  description: string
  path: string
  learning_path: string
  duration: string
  price: string | null
  image_key: string | null
  image_name: string | null
  courses: { _id: string; title: string }[]
  created_at: Date
  updated_at: Date
}

/**
 * Every program for the /api's unpaged call: listPrograms's rows in its order, each with its image and
 * ordered courses from the same statement, streamed from a cursor as the answer is sent.
 */
export function programStream(actor: Actor, query: Pick<ProgramQuery, 'q' | 'dir'> = {}): RowStream {
  if (!actor.id && actor !== SYSTEM) throw forbidden()
  const { search, pattern } = searchPattern(query.q)
  const statement = {
    text: `SELECT p.id, p.title, p.description, p.path, p.learning_path, p.duration, p.price, p.image_key,
                  f.name AS image_name, p.created_at, p.updated_at,
                  COALESCE((SELECT json_agg(json_build_object('_id', c.id, 'title', c.title) ORDER BY pc.position)
                              FROM program_courses pc JOIN courses c ON c.id = pc.course_id
                             WHERE pc.program_id = p.id), '[]') AS courses
             FROM programs p
             LEFT JOIN files f ON f.key = p.image_key
            ${search ? 'WHERE p.title ILIKE $1' : ''}
            ORDER BY lower(p.title) ${query.dir === 'desc' ? 'DESC' : 'ASC'}, p.id ASC`,
    values: search ? [pattern] : [],
  }
  const toRow = (record: ProgramRecord): ProgramDto => ({
    _id: record.id,
    title: record.title,
    description: record.description,
    path: record.path,
    learningPath: record.learning_path,
    duration: record.duration,
    price: record.price === null ? null : Number(record.price),
    programImage:
      record.image_key !== null && record.image_name !== null
        ? fileInfo({ key: record.image_key, name: record.image_name })
        : null,
    courses: record.courses,
    createdAt: new Date(record.created_at).toISOString(),
    updatedAt: new Date(record.updated_at).toISOString(),
  })
  return (sink, signal) => pipeQuery(statement, [mapRows(toRow), sink], { signal })
}

/**
 * These programs with their image and ordered courses, in the order of the ids; `withSettings`, for the
 * admin side's answers, with their certificate settings and reminders switch too.
 */
async function programsById(ids: string[], { withSettings = false } = {}): Promise<ProgramDto[]> {
  if (ids.length === 0) return []
  const { Program, Course, StoredFile } = await db()
  const programs = await Program.findAll({
    where: { id: ids },
    include: [
      { model: StoredFile, as: 'image' },
      { model: Course, as: 'courses', attributes: ['id', 'title'], through: { attributes: ['position'] } },
    ],
  })
  const byId = new Map<string, ProgramDto>()
  for (const program of programs)
    byId.set(program.id, {
      ...programDto(program),
      ...(withSettings ? { ...(await certificateFieldsOf(program)), reminders: program.reminders } : {}),
    })
  return ids.flatMap((id) => byId.get(id) ?? [])
}

function programDto(program: Program): ProgramDto {
  const image = program.image
  const courses = (program.courses ?? []).slice().sort((a, b) => a.ProgramCourse.position - b.ProgramCourse.position)
  return {
    _id: program.id,
    title: program.title,
    description: program.description,
    path: program.path,
    learningPath: program.learningPath,
    duration: program.duration,
    price: program.price === null ? null : Number(program.price),
    programImage: image ? fileInfo(image) : null,
    courses: courses.map((c) => ({ _id: c.id, title: c.title })),
    createdAt: program.createdAt.toISOString(),
    updatedAt: program.updatedAt.toISOString(),
  }
}

/** A program's own columns, from its form or its /api call, as created and as edited. */
function programColumns(data: z.output<typeof NewProgramSchema>, imageKey: string | null) {
  return {
    title: data.title,
    description: data.description,
    path: data.path,
    learningPath: data.learningPath,
    duration: data.duration,
    price: data.price.toFixed(2),
    imageKey,
  }
}

/** POST /api/program/createProgram: a program of existing courses, in the order given. */
export async function createProgram(actor: Actor, input: NewProgramInput): Promise<ProgramDto> {
  assertContentManager(actor)
  const data = NewProgramSchema.parse(input)
  const { Program, ProgramCourse, StoredFile } = await db()
  const id = await transaction(async (transaction) => {
    if (data.programImage) {
      // the same create twice (a double click, a retried request) makes one program
      await StoredFile.findByPk(data.programImage, { transaction, lock: transaction.LOCK.UPDATE })
      const where = { imageKey: data.programImage, title: data.title }
      const repeated = await Program.findOne({ where, attributes: ['id'], transaction })
      if (repeated) return repeated.id
    }
    await requireCourses(data.courses, transaction)
    const imageKey = data.programImage
      ? await attachableImage(data.programImage, null, transaction, 'programImage')
      : null
    const program = await Program.create(programColumns(data, imageKey), { transaction })
    await ProgramCourse.bulkCreate(
      data.courses.map((courseId, position) => ({ programId: program.id, courseId, position })),
      { transaction },
    )
    return program.id
  })
  const [created] = await programsById([id], { withSettings: true })
  if (!created) throw new Error('The new program could not be read back.')
  return created
}

/** A learner a program is assigned to, as the program's page lists them. */
type ProgramLearnerDto = { _id: string; firstName: string; lastName: string; userName: string; email: string }

type ProgramDetail = ProgramDto & { learners: ProgramLearnerDto[] }

const PROGRAM_NOT_FOUND = 'Program not found.'

/** A call about one program names it by a uuid; anything else is no program (404, before any other check). */
function requireProgramId(input: unknown) {
  const given = input && typeof input === 'object' ? (input as { programId?: unknown }).programId : undefined
  if (!isUuid(given)) throw notFound(PROGRAM_NOT_FOUND)
}

/** Every course named is there; otherwise the form's message on its courses. */
async function requireCourses(courseIds: string[], transaction: Transaction) {
  const { Course } = await db()
  const found = await Course.count({ where: { id: courseIds }, transaction })
  if (found !== courseIds.length) throw invalid('Please select a course.', { courses: 'Please select a course.' })
}

/** The program's page and GET /api/program/getProgram: the program with its learners; the admin side only. */
export async function getProgram(actor: Actor, programId: string): Promise<ProgramDetail> {
  requirePermission(actor, 'read:people', 'Programs are managed on the admin side.')
  if (!isUuid(programId)) throw notFound(PROGRAM_NOT_FOUND)
  const [program] = await programsById([programId], { withSettings: true })
  if (!program) throw notFound(PROGRAM_NOT_FOUND)
  const { ProgramAssignment, User } = await db()
  const assigned = await ProgramAssignment.findAll({ where: { programId }, attributes: ['userId'] })
  const learners = await User.findAll({
    where: { id: assigned.map((a) => a.userId) },
    attributes: ['id', 'firstName', 'lastName', 'userName', 'email'],
    order: [
      [fn('lower', col('first_name')), 'ASC'],
      [fn('lower', col('last_name')), 'ASC'],
      ['id', 'ASC'],
    ],
  })
  return {
    ...program,
    learners: learners.map((u) => ({
      _id: u.id,
      firstName: u.firstName,
      lastName: u.lastName,
      userName: u.userName,
      email: u.email,
    })),
  }
}

/** The program, locked for this transaction; 404 when there is none. */
async function lockProgram(programId: string, transaction: Transaction) {
  const { Program } = await db()
  const program = isUuid(programId)
    ? await Program.findByPk(programId, { transaction, lock: transaction.LOCK.UPDATE })
    : null
  if (!program) throw notFound(PROGRAM_NOT_FOUND)
  return program
}

/** The program's courses, first to last: ids in this order, each at its place (0 first). */
async function writeCourses(programId: string, courseIds: string[], transaction: Transaction) {
  const { ProgramCourse } = await db()
  // a course taken out loses its learners through the program (the completion triggers see the delete);
  // the ones kept only move, which changes no one's courses
  await ProgramCourse.destroy({ where: { programId, courseId: { [Op.notIn]: courseIds } }, transaction })
  await (
    await sequelize()
  ).query(
    `INSERT INTO program_courses (program_id, course_id, position)
     SELECT :programId, v.id, v.position FROM jsonb_to_recordset(CAST(:items AS jsonb)) AS v(id uuid, position integer)
     ON CONFLICT (program_id, course_id) DO UPDATE SET position = EXCLUDED.position
       WHERE program_courses.position <> EXCLUDED.position`,
    {
      replacements: { programId, items: JSON.stringify(courseIds.map((id, position) => ({ id, position }))) },
      transaction,
    },
  )
}

/**
 * The program's page and PUT /api/program/editProgram: the same fields and rules as a new program, the
 * reminders switch when sent (which needs manage:reminders), and (the /api) the certificate settings sent
 * (certificates/settings.server.ts). Without a new image the current one stays; a replaced image or
 * signature is deleted.
 */
export async function editProgram(actor: Actor, input: EditProgramInput): Promise<ProgramDto> {
  assertContentManager(actor)
  requireProgramId(input)
  const data = EditProgramSchema.parse(input)
  if (data.reminders !== undefined) requirePermission(actor, 'manage:reminders')
  const replaced = await transaction(async (transaction) => {
    const program = await lockProgram(data.programId, transaction)
    await requireCourses(data.courses, transaction)
    const old = program.imageKey
    const imageKey = data.programImage
      ? await attachableImage(data.programImage, old, transaction, 'programImage')
      : old
    await program.update(
      { ...programColumns(data, imageKey), ...(data.reminders === undefined ? {} : { reminders: data.reminders }) },
      { transaction },
    )
    await writeCourses(program.id, data.courses, transaction)
    const signature = await applyCertificateSettings(actor, program, 'program', data, transaction)
    return [old && old !== imageKey ? old : null, signature]
  })
  for (const key of replaced) if (key) await removeFileIfUnused(key)
  const [edited] = await programsById([data.programId], { withSettings: true })
  if (!edited) throw notFound(PROGRAM_NOT_FOUND)
  return edited
}

/** The program's rearrange page and PUT /api/program/editProgramOrder: every course of the program, in a new order. */
export async function reorderProgram(actor: Actor, input: ProgramOrderInput): Promise<ProgramDto> {
  assertContentManager(actor)
  requireProgramId(input)
  const { programId, courses } = ProgramOrderSchema.parse(input)
  const ordered = orderedIds(courses, 'course')
  const { ProgramCourse } = await db()
  await transaction(async (transaction) => {
    await lockProgram(programId, transaction)
    const current = await ProgramCourse.findAll({ where: { programId }, attributes: ['courseId'], transaction })
    const held = new Set(current.map((c) => c.courseId))
    if (current.length !== ordered.length || ordered.some((id) => !held.has(id)))
      throw invalid('Send every course of the program in the new order, each once.')
    await writeCourses(programId, ordered, transaction)
  })
  const [program] = await programsById([programId], { withSettings: true })
  if (!program) throw notFound(PROGRAM_NOT_FOUND)
  return program
}

/** The refusal of a delete while learners have the program. */
const assignedMessage = (learners: number) =>
  `This program is assigned to ${learners === 1 ? '1 learner' : `${learners} learners`}. ` +
  'Unassign them to delete it, or confirm that they are unassigned with it.'

/**
 * The program's page and DELETE /api/program/deleteProgram: the program, its course links, its
 * image and its certificates' signature (the certificates given stay, without it). With learners assigned it is refused (409) unless `confirmUnassign`: then they are unassigned
 * first. A learner keeps every course they have another way (assigned directly or through another
 * program), with its progress; progress is never deleted here.
 */
export async function deleteProgram(
  actor: Actor,
  input: DeleteProgramInput,
): Promise<{ title: string; unassigned: number }> {
  assertContentManager(actor)
  requireProgramId(input)
  const { programId, confirmUnassign } = DeleteProgramSchema.parse(input)
  const { ProgramAssignment, ProgramCourse } = await db()
  const deleted = await transaction(async (transaction) => {
    // locked: an assignment made meanwhile waits for this, then finds no program
    const program = await lockProgram(programId, transaction)
    const learners = await ProgramAssignment.count({ where: { programId }, transaction })
    if (learners > 0 && !confirmUnassign) throw conflict(assignedMessage(learners))
    // each row on its own, so the completion triggers take its courses from its learners now
    await ProgramAssignment.destroy({ where: { programId }, transaction })
    await ProgramCourse.destroy({ where: { programId }, transaction })
    await program.destroy({ transaction })
    return {
      title: program.title,
      unassigned: learners,
      files: [program.imageKey, program.certificateSignatureKey],
    }
  })
  for (const key of deleted.files) if (key) await removeFileIfUnused(key)
  return { title: deleted.title, unassigned: deleted.unassigned }
}
