import { extendZodWithOpenApi } from '@asteasolutions/zod-to-openapi'
import { z } from 'zod'
import { ROLE } from '../auth/roles.ts'
import { DOCUMENT_TYPES } from '../content/schema.ts'

// What the /api answers, as zod schemas: the OpenAPI document's response schemas, and what the tests
// check real answers against. Objects are strict, so a field a service adds without a line here
// fails those tests instead of going undocumented. Requests are not described here: the document
// takes them from the schemas the services validate with (modules/<area>/schema.ts).

extendZodWithOpenApi(z)

const id = z.string().uuid()
const timestamp = z.string().datetime()
/** Seconds of video; null where a video's length is unknown. */
const seconds = z.number().nullable()

export const ApiError = z
  .object({
    message: z.string(),
    errors: z.record(z.string()).optional().openapi({ description: 'field → what is wrong with it' }),
  })
  .strict()
  .openapi('Error', { description: 'Every refusal: a 4xx status with this body.' })

export const Message = z.object({ message: z.string() }).strict().openapi('Message')

export const FileInfo = z
  .object({
    key: z.string().openapi({ description: 'what later calls name the file by' }),
    link: z.string().openapi({ description: 'where it is downloaded, with the same credentials' }),
    name: z.string(),
  })
  .strict()
  .openapi('FileInfo')

export const IdAndTitle = z.object({ _id: id, title: z.string() }).strict().openapi('IdAndTitle')

export const Video = z
  .object({
    _id: id,
    relatedCourse: id,
    orderId: z.number().int(),
    title: z.string(),
    description: z.string(),
    duration: seconds,
    visibility: z.boolean(),
    preview: z.boolean(),
    embedUrl: z.string(),
    prerequisiteVideos: z.array(IdAndTitle),
    createdAt: timestamp,
    updatedAt: timestamp,
  })
  .strict()
  .openapi('Video')

export const Document = z
  .object({
    _id: id,
    courseId: id,
    documentType: z.enum(DOCUMENT_TYPES),
    document: FileInfo,
    contentType: z.string(),
    orderId: z.number().int(),
    visibility: z.boolean(),
    createdAt: timestamp,
    updatedAt: timestamp,
  })
  .strict()
  .openapi('Document')

const courseFields = {
  _id: id,
  title: z.string(),
  description: z.string(),
  courseImage: FileInfo.nullable(),
  duration: seconds.openapi({ description: 'seconds of visible video; null when one has no duration' }),
  createdAt: timestamp,
  updatedAt: timestamp,
}

export const CatalogueCourse = z
  .object({ ...courseFields, videoCount: z.number().int() })
  .strict()
  .openapi('CatalogueCourse')

/** A course's or program's certificate settings, in the admin side's answers only. */
const certificateFields = {
  certificates: z
    .boolean()
    .optional()
    .openapi({ description: 'certificates of completion are given (the admin side)' }),
  certificateIssuer: z.string().optional().openapi({ description: 'the issuer’s name they state (the admin side)' }),
  certificateSignature: FileInfo.nullable()
    .optional()
    .openapi({ description: 'the signature image they show (the admin side; its link opens for the admin side)' }),
}

/** A course's or program's reminders switch, in the admin side's answers only. */
const reminderFields = {
  reminders: z
    .boolean()
    .optional()
    .openapi({ description: 'reminders about due dates are mailed to its learners (the admin side)' }),
}

export const CourseDetail = z
  .object({
    ...courseFields,
    ...certificateFields,
    ...reminderFields,
    videos: z.array(Video),
    documents: z.array(Document),
    scenarios: z.array(Document),
  })
  .strict()
  .openapi('CourseDetail', {
    description:
      'A course with its contents in order; a learner sees visible entries only, and no certificate settings ' +
      'or reminders switch.',
  })

export const AssignedCourse = z
  .object({
    _id: id,
    title: z.string(),
    description: z.string(),
    courseImage: FileInfo.nullable(),
    duration: seconds,
    courseProgress: z.number().openapi({ description: 'unique seconds watched of the visible videos' }),
    percentage: z.number().min(0).max(100).openapi({
      description: 'how far along the course is: its visible videos watched and labs passed, weighed by length',
    }),
    dueDate: z
      .string()
      .date()
      .nullable()
      .openapi({
        description:
          'the day the course is due, at the end of that day in the learner’s time zone; null when it is due at ' +
          'an exact time (dueAt) or not at all. The earliest of the course’s own assignment and the assigned ' +
          'programs that hold it',
      }),
    dueAt: timestamp.nullable().openapi({
      description: 'the instant the course falls due for the learner (the end of dueDate there); null: no due date',
    }),
    completed: z.boolean().openapi({ description: 'every visible video and lab of the course done' }),
  })
  .strict()
  .openapi('AssignedCourse')

export const Program = z
  .object({
    _id: id,
    title: z.string(),
    description: z.string(),
    path: z.string(),
    learningPath: z.string(),
    duration: z.string(),
    price: z.number().nullable(),
    programImage: FileInfo.nullable(),
    courses: z.array(IdAndTitle),
    createdAt: timestamp,
    updatedAt: timestamp,
    ...certificateFields,
    ...reminderFields,
  })
  .strict()
  .openapi('Program')

/** A program with the learners it is assigned to, as its page shows it. */
export const ProgramDetail = Program.extend({
  learners: z.array(
    z
      .object({ _id: id, firstName: z.string(), lastName: z.string(), userName: z.string(), email: z.string() })
      .strict(),
  ),
})
  .strict()
  .openapi('ProgramDetail')

const roleId = z
  .union([z.literal(ROLE.superAdmin), z.literal(ROLE.learner), z.literal(ROLE.admin), z.literal(ROLE.coach)])
  .openapi({ description: '1 super admin, 2 learner, 3 admin, 4 coach' })

/** An account as a call that creates or changes one answers it. */
export const Account = z
  .object({
    id,
    roleId,
    firstName: z.string(),
    lastName: z.string(),
    userName: z.string(),
    email: z.string(),
  })
  .strict()
  .openapi('Account')

const userRowFields = {
  _id: id,
  firstName: z.string(),
  lastName: z.string(),
  userName: z.string(),
  email: z.string(),
  role: z.object({ r_id: roleId }).strict(),
  createdAt: timestamp,
  disabled: z.boolean().openapi({
    description: 'the account is disabled by an admin: it cannot sign in until it is enabled again',
  }),
}

export const UserRow = z.object(userRowFields).strict().openapi('UserRow')

export const Profile = z
  .object({
    ...userRowFields,
    assignedCourses: z.array(id),
    assignedPrograms: z.array(id),
    programsEnrolled: z.array(id).openapi({ description: 'the same as assignedPrograms, as the old client reads it' }),
    timeZone: z.string().openapi({
      description: 'the time zone due dates are read and shown in: the learner’s own, or the portal’s default',
      example: 'Europe/Berlin',
    }),
    reminderMails: z.boolean().openapi({
      description:
        'whether reminder mails about due dates go to them: false only where the admins let learners turn ' +
        'them off and they did',
    }),
  })
  .strict()
  .openapi('Profile')

const accessLogVideoFields = {
  name: z.string(),
  firstName: z.string(),
  email: z.string(),
  courseName: z.string(),
  chapter: z.string().openapi({ description: "the video's title" }),
  videoDuration: seconds,
  videoProgress: z.number().openapi({ description: 'the furthest second reached' }),
  lastViewed: timestamp,
}

export const AccessLogEntry = z.object(accessLogVideoFields).strict().openapi('AccessLogEntry')

/** With `includeLabs: true` each row says its kind: a video row is the entry above with `kind` first. */
export const AccessLogVideoRow = z
  .object({ kind: z.literal('video'), ...accessLogVideoFields })
  .strict()
  .openapi('AccessLogVideoRow')

export const AccessLogLabRow = z
  .object({
    kind: z.literal('lab'),
    name: z.string(),
    firstName: z.string(),
    email: z.string(),
    courseName: z.string(),
    chapter: z.string().openapi({ description: "the lab's and the exercise's titles, as `Lab › Exercise`" }),
    lab: z.string().openapi({ description: "the lab's title" }),
    exercise: z.string().openapi({ description: "the exercise's title" }),
    passed: z.boolean().openapi({ description: 'whether any of the attempts passed' }),
    attempts: z.number().int().openapi({ description: 'how many attempts the learner made' }),
    lastViewed: timestamp.openapi({ description: 'when the last attempt was made' }),
  })
  .strict()
  .openapi('AccessLogLabRow', {
    description: "One learner's attempts at one lab exercise (answered only with `includeLabs: true`).",
  })

export const Assessment = z
  .object({
    _id: id,
    document: FileInfo,
    courseId: id,
    userId: id,
    relatedScenarioId: id,
    scenarioName: z.string(),
    createdAt: timestamp,
  })
  .strict()
  .openapi('Assessment')

/** An upload as the admin side reads it, with the learner, course and scenario expanded. */
export const ExpandedAssessment = z
  .object({
    _id: id,
    document: FileInfo,
    courseId: IdAndTitle,
    userId: z.object({ _id: id, firstName: z.string(), lastName: z.string(), email: z.string() }).strict(),
    relatedScenarioId: z.object({ _id: id, document: z.object({ name: z.string() }).strict() }).strict(),
    createdAt: timestamp,
  })
  .strict()
  .openapi('ExpandedAssessment')

export const VideoProgressRecord = z
  .object({
    videoId: id,
    completed: z.boolean(),
    watchedSeconds: z.number(),
    lastPosition: z.number(),
    updatedAt: timestamp,
  })
  .strict()
  .openapi('VideoProgressRecord')

export const ProgressAnswer = z
  .object({ watchedSeconds: z.number(), completed: z.boolean(), lastPosition: z.number(), duration: z.number() })
  .strict()
  .openapi('ProgressAnswer')

/** `total`, `page` and `size` come only when the call was asked for one page (`?page=&size=`). */
const paging = {
  total: z.number().int().optional().openapi({ description: 'rows in the whole list; with ?page=&size= only' }),
  page: z.number().int().optional(),
  size: z.number().int().optional(),
}

/** A list under `key`, whole or one page of it. */
export const listOf = <K extends string, T extends z.ZodTypeAny>(key: K, item: T) =>
  z.object({ [key]: z.array(item), ...paging } as { [P in K]: z.ZodArray<T> } & typeof paging).strict()

export const OpenApiDocument = z
  .object({ openapi: z.literal('3.1.0'), info: z.object({ title: z.string(), version: z.string() }).passthrough() })
  .passthrough()
  .openapi({ description: 'This document.' })
