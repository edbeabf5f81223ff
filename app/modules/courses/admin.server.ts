import { type Transaction } from 'sequelize'
import { db, transaction } from '#db/client.ts'
import { can, requirePermission } from '../auth/permissions.ts'
import { ADMIN_ROLES, ROLE, type Actor } from '../auth/roles.ts'
import {
  applyCertificateSettings,
  certificateFieldsOf,
  type CertificateFieldsDto,
} from '../certificates/settings.server.ts'
import { documentDto, videoDto, type DocumentDto, type VideoDto } from '../content/dto.ts'
import { assertContentManager } from '../content/service.server.ts'
import { ReminderSwitchFormSchema } from '../deadlines/settings-form.ts'
import { conflict, forbidden, invalid, notFound } from '../errors.ts'
import { removeFileIfUnused } from '../files/service.server.ts'
import { isUuid } from '../ids.ts'
import { canOpenCourse } from './access.server.ts'
import { courseDto, type CourseDto } from './dto.ts'
import { courseDuration } from './duration.server.ts'
import { EditCourseSchema, NewCourseSchema, type EditCourseInput, type NewCourseInput } from './schema.ts'

// Course administration: the dashboard's counts, creating and editing a course, and a course with
// all its contents and flags (the /api also answers an assigned learner from it, visible entries only).

/** Counts for the admin dashboard cards; the admin side only. */
export async function dashboardCounts(actor: Actor) {
  requirePermission(actor, 'read:dashboard', 'You do not have permission to do that.')
  const { Course, User } = await db()
  const [courses, users, admins] = await Promise.all([
    Course.count(),
    User.count({ where: { roleId: ROLE.learner } }),
    User.count({ where: { roleId: [...ADMIN_ROLES] } }),
  ])
  return { courses, users, admins }
}

/**
 * An uploaded image that may become a course's (or program's) picture: uploaded as an image and
 * not the picture of another course or program. `current` is the key the course already has;
 * `field` names the input a refusal belongs to.
 */
export async function attachableImage(
  key: string,
  current: string | null,
  transaction: Transaction,
  field: 'courseImage' | 'programImage' = 'courseImage',
) {
  const { StoredFile, Course, Program } = await db()
  if (key === current) return key
  const file = await StoredFile.findByPk(key, { transaction, lock: transaction.LOCK.UPDATE })
  const message = 'Please Upload the Image.'
  if (!file || (file.purpose !== 'course_image' && file.purpose !== 'program_image'))
    throw invalid(message, { [field]: message })
  const used =
    (await Course.count({ where: { imageKey: key }, transaction })) +
    (await Program.count({ where: { imageKey: key }, transaction }))
  if (used > 0) {
    const taken = 'That image already belongs to another course or program; upload it again.'
    throw conflict(taken, { [field]: taken })
  }
  return key
}

/** POST /api/category/course: a new course with its image. */
export async function createCourse(actor: Actor, input: NewCourseInput) {
  assertContentManager(actor)
  const data = NewCourseSchema.parse(input)
  const { Course, StoredFile } = await db()
  const id = await transaction(async (transaction) => {
    // the same create twice (a double click, a retried request) makes one course: the uploaded
    // image names the request, and its row lock makes the second wait for the first
    await StoredFile.findByPk(data.courseImage, { transaction, lock: transaction.LOCK.UPDATE })
    const same = { imageKey: data.courseImage, title: data.title, description: data.description }
    const repeated = await Course.findOne({ where: same, attributes: ['id'], transaction })
    if (repeated) return repeated.id
    const imageKey = await attachableImage(data.courseImage, null, transaction)
    const course = await Course.create({ title: data.title, description: data.description, imageKey }, { transaction })
    return course.id
  })
  return getCourseDetail(actor, id)
}

/**
 * PUT /api/category/editCourseDetails: title, description and image, the certificate settings sent
 * (certificates/settings.server.ts) and the reminders switch when sent (which needs manage:reminders); a
 * replaced image or signature is deleted.
 */
export async function editCourseDetails(actor: Actor, input: EditCourseInput) {
  assertContentManager(actor)
  const data = EditCourseSchema.parse(input)
  if (data.reminders !== undefined) requirePermission(actor, 'manage:reminders')
  const { Course } = await db()
  const replaced = await transaction(async (transaction) => {
    const course = await Course.findByPk(data.courseId, { transaction, lock: transaction.LOCK.UPDATE })
    if (!course) throw notFound('Course not found.')
    const old = course.imageKey
    const imageKey = await attachableImage(data.courseImage, old, transaction)
    await course.update(
      {
        title: data.title,
        description: data.description,
        imageKey,
        ...(data.reminders === undefined ? {} : { reminders: data.reminders }),
      },
      { transaction },
    )
    const signature = await applyCertificateSettings(actor, course, 'course', data, transaction)
    return [old && old !== imageKey ? old : null, signature]
  })
  for (const key of replaced) if (key) await removeFileIfUnused(key)
  return getCourseDetail(actor, data.courseId)
}

/**
 * The reminders switch of a course's page (admins): whether its learners are mailed about their due dates.
 */
export async function setCourseReminders(
  actor: Actor,
  courseId: string,
  input: unknown,
): Promise<{ reminders: boolean }> {
  requirePermission(actor, 'manage:reminders')
  const { reminders } = ReminderSwitchFormSchema.parse(input)
  if (!isUuid(courseId)) throw notFound('Course not found.')
  const { Course } = await db()
  const [changed] = await Course.update({ reminders }, { where: { id: courseId } })
  if (changed === 0) throw notFound('Course not found.')
  return { reminders }
}

/** A course with its contents; the admin side's also with its certificate settings and reminders switch. */
type CourseDetail = CourseDto & {
  videos: VideoDto[]
  documents: DocumentDto[]
  scenarios: DocumentDto[]
} & Partial<CertificateFieldsDto & { reminders: boolean }>

/**
 * A course with its contents in order: everything for the admin side (with the visibility and
 * preview flags, the certificate settings and the reminders switch); only visible entries for a learner it is assigned to;
 * 403 for anyone else.
 */
export async function getCourseDetail(actor: Actor, courseId: string): Promise<CourseDetail> {
  if (!isUuid(courseId)) throw notFound('Course not found.')
  const { Course, ContentEntry, StoredFile } = await db()
  const course = await Course.findByPk(courseId, { include: [{ model: StoredFile, as: 'image' }] })
  if (!course) throw notFound('Course not found.')
  if (!(await canOpenCourse(actor, courseId))) throw forbidden('This course is not assigned to you.')
  const everything = can(actor, 'read:course:any')
  const entries = await ContentEntry.findAll({
    where: everything ? { courseId } : { courseId, visibility: true },
    include: [
      {
        model: ContentEntry,
        as: 'prerequisites',
        attributes: ['id', 'title', 'visibility', 'duration'],
        through: { attributes: [] },
      },
      { model: StoredFile, as: 'file' },
    ],
    order: [
      ['orderId', 'ASC'],
      ['createdAt', 'ASC'],
    ],
  })
  const videos = entries.filter((e) => e.kind === 'video')
  return {
    ...courseDto(course, course.image ?? null, await courseDuration(courseId)),
    ...(everything ? { ...(await certificateFieldsOf(course)), reminders: course.reminders } : {}),
    // a learner is not told of hidden videos, prerequisites included (they lock nothing)
    videos: videos.map((v) => videoDto(v, { allPrerequisites: everything })),
    documents: entries.filter((e) => e.kind === 'document').map(documentDto),
    scenarios: entries.filter((e) => e.kind === 'scenario').map(documentDto),
  }
}
