import { col, fn, Op } from 'sequelize'
import { db, mapRows, pipeQuery, type RowStream, transaction } from '#db/client.ts'
import type { Program } from '#db/models/index.ts'
import { SYSTEM, type Actor } from '../auth/roles.ts'
import { fileInfo, type FileInfoDto } from '../content/dto.ts'
import { assertContentManager } from '../content/service.server.ts'
import { attachableImage } from '../courses/admin.server.ts'
import { forbidden, invalid } from '../errors.ts'
import { searchPattern } from '../search.ts'
import { NewProgramSchema, type NewProgramInput } from './schema.ts'

// Programs are bundles of ordered courses: assigning one gives all its courses.

export type ProgramDto = {
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
}

export type ProgramQuery = {
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

/** These programs with their image and ordered courses, in the order of the ids. */
async function programsById(ids: string[]): Promise<ProgramDto[]> {
  if (ids.length === 0) return []
  const { Program, Course, StoredFile } = await db()
  const programs = await Program.findAll({
    where: { id: ids },
    include: [
      { model: StoredFile, as: 'image' },
      { model: Course, as: 'courses', attributes: ['id', 'title'], through: { attributes: ['position'] } },
    ],
  })
  const byId = new Map(programs.map((program) => [program.id, programDto(program)]))
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

/** POST /api/program/createProgram: a program of existing courses, in the order given. */
export async function createProgram(actor: Actor, input: NewProgramInput): Promise<ProgramDto> {
  assertContentManager(actor)
  const data = NewProgramSchema.parse(input)
  const { Program, ProgramCourse, Course, StoredFile } = await db()
  const id = await transaction(async (transaction) => {
    if (data.programImage) {
      // the same create twice (a double click, a retried request) makes one program
      await StoredFile.findByPk(data.programImage, { transaction, lock: transaction.LOCK.UPDATE })
      const where = { imageKey: data.programImage, title: data.title }
      const repeated = await Program.findOne({ where, attributes: ['id'], transaction })
      if (repeated) return repeated.id
    }
    const found = await Course.count({ where: { id: data.courses }, transaction })
    if (found !== data.courses.length) throw invalid('Please select a course.', { courses: 'Please select a course.' })
    const imageKey = data.programImage
      ? await attachableImage(data.programImage, null, transaction, 'programImage')
      : null
    const program = await Program.create(
      {
        title: data.title,
        description: data.description,
        path: data.path,
        learningPath: data.learningPath,
        duration: data.duration,
        price: data.price.toFixed(2),
        imageKey,
      },
      { transaction },
    )
    await ProgramCourse.bulkCreate(
      data.courses.map((courseId, position) => ({ programId: program.id, courseId, position })),
      { transaction },
    )
    return program.id
  })
  const [created] = await programsById([id])
  if (!created) throw new Error('The new program could not be read back.')
  return created
}
