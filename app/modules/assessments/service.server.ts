import { QueryTypes, UniqueConstraintError } from 'sequelize'
import {
  db,
  mapRows,
  pipeQuery,
  query,
  type RowStream,
  sequelize,
  sql,
  type Statement,
  transaction,
} from '#db/client.ts'
import { can, requireOwnPermission, requirePermission } from '../auth/permissions.ts'
import { type Actor } from '../auth/roles.ts'
import { fileInfo, type FileInfoDto } from '../content/dto.ts'
import { canOpenCourse } from '../courses/access.server.ts'
import { conflict, forbidden, invalid, notFound } from '../errors.ts'
import { isUuid } from '../ids.ts'
import { searchPattern } from '../search.ts'
import { UploadAssessmentSchema, type UploadAssessmentInput } from './schema.ts'

type AssessmentDto = {
  _id: string
  document: FileInfoDto
  courseId: string
  userId: string
  relatedScenarioId: string
  scenarioName: string
  createdAt: string
}

/**
 * POST /api/assignmentDocuments/uploadAssignmentDocument: register the learner's own uploaded file
 * (uploaded as an assessment, by them, not registered yet) against a visible scenario of an
 * assigned course. Sending the same file again is harmless.
 */
export async function uploadAssessment(actor: Actor, input: UploadAssessmentInput): Promise<AssessmentDto> {
  const actorId = requireOwnPermission(actor, 'upload:assessment:own')
  const data = UploadAssessmentSchema.parse(input)
  if (data.userId && data.userId !== actor.id) throw forbidden('You can upload only your own assessments.')
  if (!(await canOpenCourse(actor, data.courseId))) throw forbidden('This course is not assigned to you.')
  const { ContentEntry, StoredFile, AssessmentUpload } = await db()
  const scenario = await ContentEntry.findOne({
    where: { id: data.relatedScenarioId, courseId: data.courseId, kind: 'scenario', visibility: true },
    attributes: ['id'],
  })
  if (!scenario) throw invalid('Please choose a scenario', { relatedScenarioId: 'Please choose a scenario' })

  const id = await transaction(async (transaction) => {
    const file = await StoredFile.findByPk(data.document, { transaction, lock: transaction.LOCK.UPDATE })
    if (!file || file.purpose !== 'assessment' || file.uploadedBy !== actor.id)
      throw invalid('Please Upload a document', { document: 'Please Upload a document' })
    const existing = await AssessmentUpload.findOne({ where: { fileKey: file.key }, transaction })
    if (existing) {
      const same =
        existing.userId === actor.id && existing.scenarioId === scenario.id && existing.courseId === data.courseId
      if (same) return existing.id
      throw conflict('This file is already registered; upload it again for another scenario.')
    }
    try {
      const created = await AssessmentUpload.create(
        { userId: actorId, courseId: data.courseId, scenarioId: scenario.id, fileKey: file.key },
        { transaction },
      )
      return created.id
    } catch (error) {
      if (error instanceof UniqueConstraintError) throw conflict('This file is already registered.')
      throw error
    }
  })
  const [created] = await listAssessments(actor, { courseId: data.courseId, userId: actorId, id })
  return created
}

/**
 * GET /api/assignmentDocuments/getAssignmentDocumentsByCourseAndUser/{courseId}/{userId}: a learner
 * reads only their own; the admin side anyone's. Newest first.
 */
export async function listAssessments(
  actor: Actor,
  query: { courseId: string; userId: string; id?: string },
): Promise<AssessmentDto[]> {
  if (!isUuid(query.courseId) || !isUuid(query.userId)) throw invalid('courseId and userId must be ids.')
  if (query.userId !== actor.id && !can(actor, 'review:assessment'))
    throw forbidden('You can read only your own assessments.')
  // the same read as the admin side's review, for one learner and course
  const records = await (
    await sequelize()
  ).query<ReviewRecord>(
    `SELECT ${REVIEW_COLUMNS} ${REVIEW_FROM}
      WHERE a.course_id = :courseId AND a.user_id = :userId ${query.id ? 'AND a.id = :id' : ''}
      ORDER BY a.created_at DESC, a.id`,
    { replacements: { ...query, id: query.id ?? null }, type: QueryTypes.SELECT },
  )
  return records.map((record) => {
    const { _id, document, courseId, userId, relatedScenarioId, scenarioName, createdAt } = reviewRow(record)
    return { _id, document, courseId, userId, relatedScenarioId, scenarioName, createdAt }
  })
}

// ——— Reviewing uploads on the admin side (assignmentDocumentList / assignmentDocumentViewer) ———

/** One learner upload as the admin side reviews it: who, for which course and scenario, which file. */
type AssessmentReviewRow = {
  _id: string
  document: FileInfoDto
  userId: string
  firstName: string
  lastName: string
  email: string
  courseId: string
  courseTitle: string
  relatedScenarioId: string
  /** the scenario's document name */
  scenarioName: string
  createdAt: string
}

/** One upload opened in the viewer: the row, plus the stored type that decides how it is shown. */
type AssessmentReview = AssessmentReviewRow & { contentType: string }

type AssessmentListQuery = {
  q?: string
  offset?: number
  /** undefined: the whole list (the /api's old client expects it) */
  limit?: number
  sort?: 'createdAt' | 'firstName' | 'lastName' | 'email' | 'course'
  dir?: 'asc' | 'desc'
}

const REVIEW_ORDER = {
  createdAt: 'a.created_at',
  firstName: 'lower(u.first_name)',
  lastName: 'lower(u.last_name)',
  email: 'lower(u.email)',
  course: 'lower(c.title)',
} as const

// The scenario is kept while uploads point at it (migration 0003) and so is the file; the left
// joins only make sure an upload is never silently dropped from the list.
const REVIEW_FROM = `
  FROM assessment_uploads a
  JOIN users u ON u.id = a.user_id
  JOIN courses c ON c.id = a.course_id
  LEFT JOIN files f ON f.key = a.file_key
  LEFT JOIN content_entries s ON s.id = a.scenario_id
  LEFT JOIN files sf ON sf.key = s.file_key`

const REVIEW_SEARCH = `(
  (u.first_name || ' ' || u.last_name) ILIKE $1
  OR u.email ILIKE $1
  OR c.title ILIKE $1
  OR f.name ILIKE $1
  OR sf.name ILIKE $1
)`

const REVIEW_COLUMNS = `
  a.id, a.user_id, a.course_id, a.scenario_id, a.file_key, a.created_at,
  u.first_name, u.last_name, u.email, c.title AS course_title,
  coalesce(f.name, '') AS file_name, coalesce(f.content_type, '') AS content_type,
  coalesce(sf.name, s.title, '') AS scenario_name`

type ReviewRecord = {
  id: string
  user_id: string
  course_id: string
  scenario_id: string
  file_key: string
  created_at: Date
  first_name: string
  last_name: string
  email: string
  course_title: string
  file_name: string
  content_type: string
  scenario_name: string
}

function reviewRow(record: ReviewRecord): AssessmentReviewRow {
  return {
    _id: record.id,
    document: fileInfo({ key: record.file_key, name: record.file_name }),
    userId: record.user_id,
    firstName: record.first_name,
    lastName: record.last_name,
    email: record.email,
    courseId: record.course_id,
    courseTitle: record.course_title,
    relatedScenarioId: record.scenario_id,
    scenarioName: record.scenario_name,
    createdAt: new Date(record.created_at).toISOString(),
  }
}

/**
 * User Assignment Documents and GET /api/assignmentDocuments/getAssignmentDocuments: every learner's
 * uploads with who sent them, for which course and scenario; searched (names, email, course, file
 * and scenario names), sorted (newest first unless told) and paged in the database. The admin side only.
 */
export async function listAllAssessments(
  actor: Actor,
  query: AssessmentListQuery = {},
): Promise<{ rows: AssessmentReviewRow[]; total: number }> {
  requirePermission(actor, 'review:assessment')
  const { search, pattern } = searchPattern(query.q)
  const sql = await sequelize()
  const run = <T extends object>({ text, values }: Statement) =>
    sql.query<T>(text, { bind: values, type: QueryTypes.SELECT })
  const page = { offset: Math.max(query.offset ?? 0, 0), limit: query.limit ?? null }
  const [records, [{ total }]] = await Promise.all([
    run<ReviewRecord>(reviewStatement(query, page)),
    run<{ total: string }>({
      text: `SELECT count(*) AS total ${REVIEW_FROM} ${search ? `WHERE ${REVIEW_SEARCH}` : ''}`,
      values: search ? [pattern] : [],
    }),
  ])
  return { rows: records.map(reviewRow), total: Number(total) }
}

/**
 * Every upload for GET /api/assignmentDocuments/getAssignmentDocuments without paging: listAllAssessments's
 * rows in its order, expanded as that call answers them, streamed from a cursor as the answer is sent.
 * The admin side only; a refusal throws here, before any row is read.
 */
export function expandedAssessmentStream(
  actor: Actor,
  query: Omit<AssessmentListQuery, 'offset' | 'limit'> = {},
): RowStream {
  requirePermission(actor, 'review:assessment')
  const statement = reviewStatement(query)
  const toRow = (record: ReviewRecord) => expandedAssessment(reviewRow(record))
  return (sink, signal) => pipeQuery(statement, [mapRows(toRow), sink], { signal })
}

/** The uploads a list query selects, in its order; a page of them when `page` is given. */
function reviewStatement(query: AssessmentListQuery, page?: { offset: number; limit: number | null }): Statement {
  const { search, pattern } = searchPattern(query.q)
  const sort = query.sort && Object.hasOwn(REVIEW_ORDER, query.sort) ? query.sort : 'createdAt'
  const dir = (query.dir ?? (sort === 'createdAt' ? 'desc' : 'asc')) === 'desc' ? 'DESC' : 'ASC'
  // the search is always $1 when there is one; the page's bounds come after it
  const values: unknown[] = search ? [pattern] : []
  const bounds = page ? `LIMIT $${values.push(page.limit)} OFFSET $${values.push(page.offset)}` : ''
  return {
    text: `SELECT ${REVIEW_COLUMNS} ${REVIEW_FROM} ${search ? `WHERE ${REVIEW_SEARCH}` : ''}
       ORDER BY ${REVIEW_ORDER[sort]} ${dir}, a.created_at DESC, a.id
       ${bounds}`,
    values,
  }
}

const REVIEW_BY_ID = sql(`SELECT ${REVIEW_COLUMNS} ${REVIEW_FROM} WHERE a.id = :id`)

/**
 * The assessment viewer and GET /api/assignmentDocuments/getIndividualAssignmentDocument/{id}: one
 * upload, for the admin side or the learner who sent it.
 */
export async function getAssessment(actor: Actor, id: string): Promise<AssessmentReview> {
  if (!isUuid(id)) throw notFound('Assessment not found.')
  const [record] = await query<ReviewRecord>(REVIEW_BY_ID, { id })
  if (!record) throw notFound('Assessment not found.')
  if (!can(actor, 'review:assessment') && (!actor.id || record.user_id !== actor.id))
    throw forbidden('You can read only your own assessments.')
  return { ...reviewRow(record), contentType: record.content_type }
}

/** An upload as the admin list expands it for the old client (userId, courseId and relatedScenarioId as objects). */
export function expandedAssessment(row: AssessmentReviewRow) {
  return {
    _id: row._id,
    document: row.document,
    courseId: { _id: row.courseId, title: row.courseTitle },
    userId: { _id: row.userId, firstName: row.firstName, lastName: row.lastName, email: row.email },
    relatedScenarioId: { _id: row.relatedScenarioId, document: { name: row.scenarioName } },
    createdAt: row.createdAt,
  }
}
