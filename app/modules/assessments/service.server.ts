import { UniqueConstraintError } from 'sequelize'
import { db, sequelize } from '#db/client.ts'
import { isAdminSide, ROLE, type Actor } from '../auth/roles.ts'
import { fileInfo, type FileInfoDto } from '../content/dto.ts'
import { canOpenCourse } from '../courses/access.server.ts'
import { conflict, forbidden, invalid } from '../errors.ts'
import { isUuid } from '../ids.ts'
import { UploadAssessmentSchema, type UploadAssessmentInput } from './schema.ts'

export type AssessmentDto = {
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
  if (actor.roleId !== ROLE.learner || !actor.id) throw forbidden('Assessments are uploaded by learners.')
  const data = UploadAssessmentSchema.parse(input)
  if (data.userId && data.userId !== actor.id) throw forbidden('You can upload only your own assessments.')
  if (!(await canOpenCourse(actor, data.courseId))) throw forbidden('This course is not assigned to you.')
  const { ContentEntry, StoredFile, AssessmentUpload } = await db()
  const scenario = await ContentEntry.findOne({
    where: { id: data.relatedScenarioId, courseId: data.courseId, kind: 'scenario', visibility: true },
    attributes: ['id'],
  })
  if (!scenario) throw invalid('Please choose a scenario', { relatedScenarioId: 'Please choose a scenario' })

  const id = await (
    await sequelize()
  ).transaction(async (transaction) => {
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
        { userId: actor.id as string, courseId: data.courseId, scenarioId: scenario.id, fileKey: file.key },
        { transaction },
      )
      return created.id
    } catch (error) {
      if (error instanceof UniqueConstraintError) throw conflict('This file is already registered.')
      throw error
    }
  })
  const [created] = await listAssessments(actor, { courseId: data.courseId, userId: actor.id, id })
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
  if (query.userId !== actor.id && !isAdminSide(actor.roleId))
    throw forbidden('You can read only your own assessments.')
  const { AssessmentUpload, StoredFile, ContentEntry } = await db()
  const rows = await AssessmentUpload.findAll({
    where: { courseId: query.courseId, userId: query.userId, ...(query.id ? { id: query.id } : {}) },
    include: [
      { model: StoredFile, as: 'file' },
      { model: ContentEntry, as: 'scenario', include: [{ model: StoredFile, as: 'file', attributes: ['name'] }] },
    ],
    order: [['createdAt', 'DESC']],
  })
  return rows.map((row) => {
    const { file, scenario } = row
    return {
      _id: row.id,
      document: file ? fileInfo(file) : { key: row.fileKey, link: '', name: '' },
      courseId: row.courseId,
      userId: row.userId,
      relatedScenarioId: row.scenarioId,
      scenarioName: scenario?.file?.name ?? scenario?.title ?? '',
      createdAt: row.createdAt.toISOString(),
    }
  })
}
