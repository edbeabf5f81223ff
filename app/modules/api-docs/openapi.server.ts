import {
  OpenApiGeneratorV31,
  OpenAPIRegistry,
  type ResponseConfig,
  type RouteConfig,
} from '@asteasolutions/zod-to-openapi'
import { z, type AnyZodObject, type ZodTypeAny } from 'zod'
import { PRODUCT_NAME } from '#app/utils/brand.ts'
import { AccessLogFilterSchema } from '../access-log/schema.ts'
import { UploadAssessmentSchema } from '../assessments/schema.ts'
import { AssignCourseSchema, AssignProgramSchema } from '../assignments/schema.ts'
import { ForgotPasswordSchema, LoginSchema } from '../auth/schema.ts'
import { CheckBridgeCourseSchema } from '../bridge/schema.ts'
import {
  AddDocumentSchema,
  EditDocumentSchema,
  EditVideoSchema,
  NewVideoSchema,
  ReorderSchema,
} from '../content/schema.ts'
import { EditCourseSchema, NewCourseSchema } from '../courses/schema.ts'
import { ReminderPlanSchema } from '../deadlines/plan.ts'
import { EditProgramSchema, NewProgramSchema, ProgramOrderSchema } from '../programs/schema.ts'
import {
  AccessLogPingSchema,
  VideoAuditSchema,
  VideoProgressSchema,
  VideosProgressQuerySchema,
} from '../progress/schema.ts'
import {
  AccountIdSchema,
  NewCoachSchema,
  NewPasswordSchema,
  PasswordChangeSchema,
  ProfileSchema,
  RegisterSchema,
} from '../users/schema.ts'
import {
  AccessLogEntry,
  AccessLogLabRow,
  AccessLogVideoRow,
  Account,
  ApiError,
  AssignedCourse,
  Assessment,
  CatalogueCourse,
  CourseDetail,
  Document,
  ExpandedAssessment,
  FileInfo,
  IdAndTitle,
  listOf,
  Message,
  OpenApiDocument,
  Profile,
  Program,
  ProgramDetail,
  ProgressAnswer,
  UserRow,
  Video,
  VideoProgressRecord,
} from './responses.server.ts'

// The /api as partners read it: every call with who may make it, its path values, query and body,
// and its answers. Bodies are the very zod schemas the services validate with (ADR 011), so the
// document cannot drift from the rules; answers are the schemas of responses.server.ts.
// tests/integration/openapi.test.ts holds this list and the route files to each other. An id that is both a
// path value and a body field (the old client sends both) is optional in the body: the path's wins.

/** Who may make a call; the service checks again. */
const WHO = {
  anyone: 'Anyone: no token needed.',
  signedIn: 'Any signed-in user.',
  adminSide: 'The admin side: super admin, admins and coaches.',
  admins: 'Admins and the super admin.',
  uploaders: 'Admins and the super admin (course documents and scenarios), and learners (their assessments).',
  learners: 'Learners only.',
} as const
type Who = keyof typeof WHO

type Status = 400 | 401 | 403 | 404 | 409 | 413 | 415 | 429
const REFUSALS: Record<Status, string> = {
  400: 'The request is not valid: `message` says why, `errors` names the fields.',
  401: 'No token, or an expired or revoked one: sign in again.',
  403: 'The caller may not do this.',
  404: 'Nothing with that id.',
  409: 'It conflicts with what is stored.',
  413: 'The file or body is too large.',
  415: 'The file is not of an accepted type.',
  429: 'Too many attempts, reports, whole-list downloads at once or uploads not yet used; wait (Retry-After seconds, when given) and try again.',
}

type Call = {
  method: 'get' | 'post' | 'put' | 'delete'
  path: `/api/${string}`
  summary: string
  description?: string
  who: Who
  params?: AnyZodObject
  query?: AnyZodObject
  /** a JSON body; `{ multipart }` names the form field that carries the file */
  body?: ZodTypeAny | { multipart: string; also?: string }
  /** the 200 answer */
  ok: ZodTypeAny
  /** refusals beyond the ones `who` and a body imply */
  refusals?: Status[]
  /** a 400 answer with more than `{ message, errors }` */
  invalidAnswer?: ZodTypeAny
}

const UNATTACHED_QUOTA =
  'Uploads that nothing uses yet count against the caller’s allowance (UPLOAD_UNATTACHED_MAX_MB, 200 MB by ' +
  'default): past it the upload answers 429. Any file name is accepted.'

const uuid = z.string().uuid()
const ids = <K extends string>(...names: K[]) =>
  z.object(Object.fromEntries(names.map((name) => [name, uuid])) as { [P in K]: typeof uuid })

/** ?page=&size= (both or neither; pageQuery in api.server.ts) and, for searchable lists, ?q=. */
const PAGE = z.object({
  page: z.number().int().min(1).max(9_999_999).optional().openapi({ description: 'from 1; give size too' }),
  size: z.number().int().min(1).max(500).optional().openapi({ description: '1 to 500; give page too' }),
})
const SEARCHABLE_PAGE = PAGE.extend({ q: z.string().optional().openapi({ description: 'part of a name' }) })

/**
 * The due date and reminder plan of an assignment as a partner sends them: the same rules as the service's
 * schema (dueDateField, ReminderPlanSchema), written as the text a partner sends rather than as what it is
 * read into.
 */
const ASSIGNMENT_DUE = {
  dueDate: z
    .string()
    .max(40)
    .nullable()
    .optional()
    .openapi({
      description:
        'When the assignment is due. A day (`2026-12-15`, `2026/12/15`, `15.12.2026`, `15 Dec 2026`, `Dec 15, 2026`): ' +
        "due at the end of that day in the learner's time zone. An exact time with an offset " +
        "(`2026-12-15T17:00:00Z`, `…+01:00`), or without (`2026-12-15 17:00`: that time in the learner's time " +
        'zone). `12/05/2026` is refused as ambiguous. Absent: a new assignment has none and an existing one ' +
        'keeps its own; `null` or empty: none. A date that cannot be read answers 400 with `errors.dueDate`.',
      examples: ['2026-12-15', '2026-12-15 17:00', '2026-12-15T17:00:00Z', null],
    }),
  reminderPlan: ReminderPlanSchema.nullable()
    .optional()
    .openapi({
      description:
        "This assignment's own reminders: days before the due day (0: the day itself) and days overdue (from 1), " +
        "up to 10 each; two empty lists send none. Absent: kept; `null`: the portal's plan.",
      example: { before: [7, 1], after: [1, 3] },
    }),
}

const registry = new OpenAPIRegistry()
const bearer = registry.registerComponent('securitySchemes', 'bearer', {
  type: 'http',
  scheme: 'bearer',
  bearerFormat: 'JWT',
  description: 'The token from POST /api/user/login.',
})

function call(c: Call) {
  const refusals = new Set<Status>(c.refusals)
  if (c.body || c.query || c.params) refusals.add(400)
  if (c.body) refusals.add(413)
  if (c.who !== 'anyone') refusals.add(401)
  if (c.who !== 'anyone' && c.who !== 'signedIn') refusals.add(403)
  const responses: RouteConfig['responses'] = {
    200: { description: c.summary, content: { 'application/json': { schema: c.ok } } },
  }
  for (const status of [...refusals].sort((a, b) => a - b)) {
    const schema = status === 400 && c.invalidAnswer ? c.invalidAnswer : ApiError
    responses[status] = { description: REFUSALS[status], content: { 'application/json': { schema } } }
  }
  registry.registerPath({
    method: c.method,
    path: c.path,
    summary: c.summary,
    description: [WHO[c.who], c.description].filter(Boolean).join('\n\n'),
    // by the part after /api/ (user, category …); this document's own path has none
    tags: [c.path.split('/').length > 3 ? c.path.split('/')[2] : 'reference'],
    security: c.who === 'anyone' ? [] : [{ [bearer.name]: [] }],
    request: {
      params: c.params,
      query: c.query,
      body: c.body === undefined ? undefined : requestBody(c.body),
    },
    responses,
  })
}

function requestBody(body: NonNullable<Call['body']>) {
  if (!('multipart' in body)) return { required: true, content: { 'application/json': { schema: body } } }
  const file = z.string().openapi({ type: 'string', format: 'binary', description: 'the file itself' })
  const fields = { [body.multipart]: body.also ? file.optional() : file }
  if (body.also) fields[body.also] = file.optional().openapi({ description: `another name for ${body.multipart}` })
  return { required: true, content: { 'multipart/form-data': { schema: z.object(fields) } } }
}

/**
 * A list call that, without ?page=&size=, streams the whole list (ADR 020): refused with 429 and
 * Retry-After while LIST_STREAMS_MAX of them are running in the process (json-stream.server.ts).
 */
function listCall(c: Call) {
  call({
    ...c,
    description: [
      c.description,
      'Without `page` and `size`, the whole list, sent as it is read; while too many whole lists are being ' +
        'sent, 429 with `Retry-After`.',
    ]
      .filter(Boolean)
      .join(' '),
    refusals: [...(c.refusals ?? []), 429],
  })
}

const message = <T extends z.ZodRawShape>(shape: T) => z.object({ message: z.string(), ...shape }).strict()

// ——— /api/user ———

call({
  method: 'post',
  path: '/api/user/login',
  summary: 'Sign in: a token for the other calls',
  description:
    '`email` takes an email or a username. Only wrong passwords count against sign-in, by client address: ' +
    'ten for one account (three while the account is under attack from many addresses) or a hundred for any ' +
    'accounts within 15 minutes, and that address answers 429 until the window moves on. An address that has ' +
    'not been failing is never refused. The right password of a disabled account answers 403 saying the ' +
    'account is disabled; a wrong one answers 401 as for any account.',
  who: 'anyone',
  body: LoginSchema,
  ok: z.object({ token: z.string() }).strict(),
  refusals: [401, 403, 429],
})
call({
  method: 'post',
  path: '/api/user/forgotPassword',
  summary: 'Mail a password-reset link',
  description: 'The same answer whether or not an account matches.',
  who: 'anyone',
  body: ForgotPasswordSchema,
  ok: Message,
})
call({
  method: 'post',
  path: '/api/user/resetPassword/{token}',
  summary: 'Set a new password with the link from the reset mail',
  description: 'An unknown, used or expired link answers 400. The field may also be called `newPassword`.',
  who: 'anyone',
  params: z.object({ token: z.string() }),
  body: NewPasswordSchema,
  ok: Message,
})
call({
  method: 'post',
  path: '/api/user/register',
  summary: 'Create a learner, or an admin',
  description:
    'No role means a learner; `role: "admin"` needs the super admin. The new user gets a mail with a link to ' +
    'choose a password. A refusal repeats each field error at the top level, as the old client reads them.',
  who: 'admins',
  body: RegisterSchema,
  ok: message({ user: Account }),
  refusals: [409],
  invalidAnswer: ApiError.catchall(z.string()).openapi('RegisterRefusal', {
    description: 'The refusal, with each field error also under the field’s own name.',
  }),
})
call({
  method: 'post',
  path: '/api/user/coach',
  summary: 'Create a coach',
  description: 'The coach gets a mail with a link to choose a password.',
  who: 'admins',
  body: NewCoachSchema,
  ok: message({ coach: Account }),
  refusals: [409],
})
call({
  method: 'get',
  path: '/api/user/profile',
  summary: "The caller's own profile",
  who: 'signedIn',
  ok: z.object({ user: Profile }).strict(),
})
call({
  method: 'get',
  path: '/api/user/profile/{userId}',
  summary: 'A profile: one’s own, or anyone’s for the admin side',
  who: 'signedIn',
  params: ids('userId'),
  ok: z.object({ message: Profile }).strict(),
  refusals: [403, 404],
})
call({
  method: 'put',
  path: '/api/user/editProfile',
  summary: 'Change names, username, time zone and reminder mails',
  description:
    '`userId` defaults to the caller. The email cannot change; if sent it must be the account’s own. ' +
    '`timeZone` and `reminderMails` left out keep what is stored; `reminderMails` is ignored unless the ' +
    'admins let learners turn reminder mails off.',
  who: 'signedIn',
  body: ProfileSchema.merge(AccountIdSchema),
  ok: message({ user: Account }),
  refusals: [403, 404, 409],
})
call({
  method: 'put',
  path: '/api/user/profilePassword',
  summary: 'Change one’s own password',
  description:
    'Every token and session of the account stops working: sign in again. `newPassword` is accepted for ' +
    '`password`; `userId` defaults to the caller.',
  who: 'signedIn',
  body: z.intersection(PasswordChangeSchema, AccountIdSchema),
  ok: Message,
  refusals: [403],
})
call({
  method: 'post',
  path: '/api/user/postAccessLog',
  summary: 'Record that the learner opened a page',
  description: 'A ping repeated within a moment is not recorded twice (`recorded: false`).',
  who: 'learners',
  body: AccessLogPingSchema,
  ok: message({ recorded: z.boolean() }),
})
for (const [kind, who] of [
  ['admin', 'admins and super admins'],
  ['user', 'learners'],
] as const) {
  listCall({
    method: 'get',
    path: `/api/user/usersList/${kind}`,
    summary: `The ${who}, newest first`,
    who: 'adminSide',
    query: SEARCHABLE_PAGE,
    ok: listOf('message', UserRow),
  })
}

// ——— /api/category: courses and their contents ———

listCall({
  method: 'get',
  path: '/api/category/courses',
  summary: 'The catalogue: every course with its image and duration',
  who: 'signedIn',
  query: SEARCHABLE_PAGE,
  ok: listOf('courses', CatalogueCourse),
})
listCall({
  method: 'get',
  path: '/api/category/coursesList',
  summary: 'Ids and titles of every course, for pickers',
  who: 'signedIn',
  query: PAGE,
  ok: listOf('courses', IdAndTitle),
})
call({
  method: 'get',
  path: '/api/category/course/{courseId}',
  summary: 'A course with its videos, documents and scenarios',
  description: 'A learner reads an assigned course, visible entries only; the admin side reads every course.',
  who: 'signedIn',
  params: ids('courseId'),
  ok: z.object({ message: CourseDetail }).strict(),
  refusals: [403, 404],
})
call({
  method: 'get',
  path: '/api/category/courseMeta/{courseId}',
  summary: 'Every content entry of a course, videos first',
  who: 'signedIn',
  params: ids('courseId'),
  ok: z.object({ data: z.array(z.union([Video, Document])) }).strict(),
  refusals: [403, 404],
})
call({
  method: 'get',
  path: '/api/category/getDocuments/{courseId}',
  summary: 'The documents, then the scenarios, of a course',
  who: 'signedIn',
  params: ids('courseId'),
  ok: z.object({ data: z.array(Document) }).strict(),
  refusals: [403, 404],
})
call({
  method: 'get',
  path: '/api/category/assignedCourses/{userId}',
  summary: 'A learner’s courses with their progress',
  description: 'A learner reads their own; the admin side anyone’s.',
  who: 'signedIn',
  params: ids('userId'),
  ok: z.object({ message: z.object({ assignedCourses: z.array(AssignedCourse) }).strict() }).strict(),
  refusals: [403, 404],
})
call({
  method: 'post',
  path: '/api/category/course',
  summary: 'Create a course',
  description: 'Upload the image first with addCourseImage and send its key.',
  who: 'admins',
  body: NewCourseSchema,
  ok: message({ course: CourseDetail }),
  refusals: [409],
})
/** What the edit calls say of the certificate settings they also take. */
const CERTIFICATE_SETTINGS =
  'The certificate settings (`certificates`, `certificateIssuer`, `certificateSignature`) are each kept when ' +
  'left out; certificates on need an issuer’s name (400 otherwise). Upload the signature first with ' +
  'addCertificateSignature; `null` removes it, and a replaced or removed signature is deleted. Switching ' +
  'certificates on gives none for completions before it; `issueToCompleted: true` (with certificates on) has ' +
  'the background jobs give them within seconds.'

/** What the edit calls say of the reminders switch they also take. */
const REMINDERS_SWITCH =
  '`reminders` (true or false) switches the reminders about due dates mailed to its learners on or off; it is ' +
  'kept when left out, and changing it needs the right to change the reminders (403 otherwise).'

call({
  method: 'put',
  path: '/api/category/editCourseDetails',
  summary: 'Change a course’s title, description and image, its certificate settings and its reminders switch',
  description: `${CERTIFICATE_SETTINGS} ${REMINDERS_SWITCH}`,
  who: 'admins',
  body: EditCourseSchema,
  ok: message({ course: CourseDetail }),
  refusals: [404, 409],
})
call({
  method: 'post',
  path: '/api/category/addCourseImage',
  summary: 'Upload an image for a course or program',
  description: 'png, gif or jpeg, checked by content. Attach it with a later call by its `key`. ' + UNATTACHED_QUOTA,
  who: 'admins',
  body: { multipart: 'courseImage', also: 'courseDocument' },
  ok: message({ fileInfo: FileInfo }),
  refusals: [415, 429],
})
call({
  method: 'post',
  path: '/api/category/addCertificateSignature',
  summary: 'Upload the issuer’s signature for a course’s or program’s certificates',
  description:
    'png or jpeg, checked by content, at most 2 MB. Attach it with editCourseDetails or editProgram by its ' +
    '`key`; its link opens for the admin side only. ' +
    UNATTACHED_QUOTA,
  who: 'admins',
  body: { multipart: 'certificateSignature' },
  ok: message({ fileInfo: FileInfo }),
  refusals: [415, 429],
})
call({
  method: 'post',
  path: '/api/category/addCourseDocument',
  summary: 'Upload a document, a scenario or an assessment',
  description:
    'An admin’s file becomes a course document or scenario (attach it with addDocument); a learner’s is their ' +
    'assessment (register it with uploadAssignmentDocument). csv, pdf, docx, ppt or pptx, checked by content. ' +
    UNATTACHED_QUOTA,
  who: 'uploaders',
  body: { multipart: 'courseDocument' },
  ok: message({ fileInfo: FileInfo }),
  refusals: [415, 429],
})
call({
  method: 'post',
  path: '/api/category/addDocument',
  summary: 'Attach an uploaded document or scenario to a course',
  who: 'admins',
  body: AddDocumentSchema,
  ok: message({ document: Document }),
  refusals: [404, 409],
})
call({
  method: 'put',
  path: '/api/category/editDocumentOrder/{documentId}',
  summary: 'Change a document: its file, visibility or place',
  who: 'admins',
  params: EditDocumentSchema.pick({ documentId: true }),
  body: EditDocumentSchema.partial({ documentId: true }),
  ok: message({ document: Document }),
  refusals: [404, 409],
})
call({
  method: 'put',
  path: '/api/category/editDocumentOrder',
  summary: 'Reorder every document (or every scenario) of a course',
  who: 'admins',
  body: ReorderSchema,
  ok: Message,
  refusals: [404],
})
call({
  method: 'delete',
  path: '/api/category/deleteDocument/{courseId}/{documentId}',
  summary: 'Delete a document or scenario, with its file',
  description: 'A scenario learners have submitted assessments against is kept (409).',
  who: 'admins',
  params: ids('courseId', 'documentId'),
  ok: Message,
  refusals: [404, 409],
})
call({
  method: 'put',
  path: '/api/category/courseVideo/{relatedCourseId}',
  summary: 'Add a video to a course',
  who: 'admins',
  params: z.object({ relatedCourseId: NewVideoSchema.shape.relatedCourse }),
  body: NewVideoSchema.partial({ relatedCourse: true }),
  ok: message({ video: Video }),
  refusals: [404],
})
call({
  method: 'put',
  path: '/api/category/editVideo/{videoId}',
  summary: 'Change a video',
  who: 'admins',
  params: EditVideoSchema.pick({ videoId: true }),
  body: EditVideoSchema.partial({ videoId: true }),
  ok: message({ video: Video }),
  refusals: [404],
})
call({
  method: 'put',
  path: '/api/category/editVideoOrder',
  summary: 'Reorder every video of a course',
  who: 'admins',
  body: ReorderSchema,
  ok: Message,
  refusals: [404],
})
call({
  method: 'delete',
  path: '/api/category/deleteVideo/{courseId}/{videoId}',
  summary: 'Delete a video',
  description: 'Videos it was a prerequisite of lose that prerequisite, and are named in the message.',
  who: 'admins',
  params: ids('courseId', 'videoId'),
  ok: Message,
  refusals: [404],
})
call({
  method: 'post',
  path: '/api/category/assignCourse/{userId}',
  summary: 'Assign a course to a learner',
  description:
    'Assigning twice is harmless; given a `dueDate` or a `reminderPlan`, a course assigned already takes them.',
  who: 'admins',
  params: AssignCourseSchema.pick({ userId: true }),
  body: AssignCourseSchema.partial({ userId: true }).extend(ASSIGNMENT_DUE),
  ok: Message,
  refusals: [404],
})

// ——— /api/category: progress and the access log ———

call({
  method: 'post',
  path: '/api/category/videoProgress',
  summary: 'The player’s heartbeat: seconds really played',
  description: 'More seconds than the time since the last heartbeat allows answer 429 and record nothing.',
  who: 'learners',
  body: VideoProgressSchema,
  ok: ProgressAnswer,
  refusals: [404, 429],
})
call({
  method: 'post',
  path: '/api/category/videoAudit',
  summary: 'The player’s audit: how far the learner got',
  who: 'learners',
  body: VideoAuditSchema,
  ok: Message,
  refusals: [404],
})
call({
  method: 'post',
  path: '/api/category/getVideosProgress',
  summary: 'A learner’s progress on each video of a course',
  description: 'A learner reads their own; the admin side anyone’s.',
  who: 'signedIn',
  body: VideosProgressQuerySchema,
  ok: z.object({ data: z.array(VideoProgressRecord) }).strict(),
  refusals: [403],
})
listCall({
  method: 'post',
  path: '/api/category/accessLog',
  summary: 'The access log: per learner and video, how far and when, newest first',
  description:
    'Dates are whole days, MM/dd/yyyy or yyyy-MM-dd, in `timeZone` (UTC by default). Without `includeLabs` every ' +
    'row is a video viewing (`AccessLogEntry`), as the old client reads them. With `includeLabs: true` the rows of ' +
    'lab attempts come too, one per learner and exercise attempted, merged newest first (by the last attempt), and ' +
    'every row has `kind`: `video` (`AccessLogVideoRow`) or `lab` (`AccessLogLabRow`); the day filter reads the ' +
    'last attempt, and `total` counts both kinds.',
  who: 'adminSide',
  query: PAGE,
  body: AccessLogFilterSchema,
  ok: listOf('data', z.union([AccessLogEntry, AccessLogVideoRow, AccessLogLabRow])),
})
listCall({
  method: 'get',
  path: '/api/category/allusers',
  summary: 'The access log without a filter',
  who: 'adminSide',
  query: PAGE,
  ok: listOf('data', AccessLogEntry),
})

// ——— /api/program ———

listCall({
  method: 'get',
  path: '/api/program/getPrograms',
  summary: 'Every program with its courses, by name',
  who: 'signedIn',
  query: PAGE,
  ok: listOf('data', Program),
})
call({
  method: 'post',
  path: '/api/program/createProgram',
  summary: 'Create a program of existing courses, in the order given',
  description: '`name` is accepted for `title`, and `relatedCourse` for `courses`.',
  who: 'admins',
  body: NewProgramSchema,
  ok: message({ program: Program }),
  refusals: [409],
})
call({
  method: 'get',
  path: '/api/program/getProgram/{programId}',
  summary: 'A program with its courses in order and the learners it is assigned to',
  who: 'adminSide',
  params: ids('programId'),
  ok: z.object({ data: ProgramDetail }).strict(),
  refusals: [404],
})
call({
  method: 'put',
  path: '/api/program/editProgram/{programId}',
  summary: 'Change a program: the same fields and rules as createProgram',
  description:
    'The courses are the whole new list, in order. Without `programImage` (or with the current one) the image ' +
    'stays; a replaced image is deleted. `name` is accepted for `title`, and `relatedCourse` for `courses`. ' +
    `${CERTIFICATE_SETTINGS} ${REMINDERS_SWITCH}`,
  who: 'admins',
  params: ids('programId'),
  body: EditProgramSchema.innerType().partial({ programId: true }),
  ok: message({ program: Program }),
  refusals: [404, 409],
})
call({
  method: 'put',
  path: '/api/program/editProgramOrder/{programId}',
  summary: 'Reorder every course of a program',
  description: 'Each course of the program once, with its new place (`orderId` 0 first) as `_id` the course.',
  who: 'admins',
  params: ids('programId'),
  body: ProgramOrderSchema.shape.courses,
  ok: message({ program: Program }),
  refusals: [404],
})
call({
  method: 'delete',
  path: '/api/program/deleteProgram/{programId}',
  summary: 'Delete a program, its course links and its image',
  description:
    'While learners are assigned the program it is refused (409) unless `confirmUnassign=true`, which ' +
    'unassigns them first. A learner keeps every course assigned directly or through another program.',
  who: 'admins',
  params: ids('programId'),
  query: z.object({ confirmUnassign: z.enum(['true', 'false']).optional() }),
  ok: Message,
  refusals: [404, 409],
})
call({
  method: 'put',
  path: '/api/program/assignProgram',
  summary: 'Assign a program, and so every course of it, to a learner',
  description:
    'Assigning twice is harmless; given a `dueDate` or a `reminderPlan`, a program assigned already takes them.',
  who: 'admins',
  body: AssignProgramSchema.extend(ASSIGNMENT_DUE),
  ok: Message,
  refusals: [404],
})

// ——— /api/assignmentDocuments: learners' assessments ———

call({
  method: 'post',
  path: '/api/assignmentDocuments/uploadAssignmentDocument',
  summary: 'Register an uploaded assessment against a scenario',
  description: 'Upload the file first with addCourseDocument and send its key as `document`.',
  who: 'learners',
  body: UploadAssessmentSchema,
  ok: message({ data: Assessment }),
  refusals: [409],
})
listCall({
  method: 'get',
  path: '/api/assignmentDocuments/getAssignmentDocuments',
  summary: 'Every learner’s assessments, newest first',
  who: 'adminSide',
  query: SEARCHABLE_PAGE,
  ok: listOf('data', ExpandedAssessment),
})
call({
  method: 'get',
  path: '/api/assignmentDocuments/getAssignmentDocumentsByCourseAndUser/{courseId}/{userId}',
  summary: 'One learner’s assessments for one course',
  description: 'A learner reads their own; the admin side anyone’s.',
  who: 'signedIn',
  params: ids('courseId', 'userId'),
  ok: z.object({ data: z.array(Assessment) }).strict(),
  refusals: [403],
})
call({
  method: 'get',
  path: '/api/assignmentDocuments/getIndividualAssignmentDocument/{id}',
  summary: 'One assessment, as a list of one',
  description: 'For the admin side, or the learner who sent it.',
  who: 'signedIn',
  params: ids('id'),
  ok: z.object({ data: z.array(ExpandedAssessment) }).strict(),
  refusals: [403, 404],
})

// ——— /api/ibridge: sign-in links from partner systems ———

call({
  method: 'post',
  path: '/api/ibridge/checkIbridgeCourses',
  summary: 'Sign in with a bridge token and ask whether a course is the learner’s',
  description: 'The bridge token in `ilearn` is the credential, and this call spends it.',
  who: 'anyone',
  body: CheckBridgeCourseSchema,
  ok: z
    .object({ token: z.string(), course: IdAndTitle.nullable(), courseId: z.string(), assigned: z.boolean() })
    .strict(),
  refusals: [401, 403],
})
call({
  method: 'get',
  path: '/api/ibridge/user/{ilearn}',
  summary: 'Sign in with a bridge token: a token and the profile',
  description: 'The bridge token in the path is the credential, and this call spends it.',
  who: 'anyone',
  params: z.object({ ilearn: z.string() }),
  ok: z.object({ token: z.string(), user: Profile }).strict(),
  refusals: [401, 403],
})

// ——— /api/labs: SQL labs ———

const Cell = z.string().nullable().openapi({ description: 'a value as PostgreSQL prints it; null for NULL' })

// A plan exercise's answer: the final query's plan as a tree, and each of the exercise's rules checked on it.
const PlanStep = z
  .object({
    type: z.string().openapi({ description: 'the node type EXPLAIN names: Seq Scan, Index Scan, Hash Join …' }),
    relation: z.string().optional().openapi({ description: 'the table or view the step reads' }),
    indexes: z
      .array(z.string())
      .openapi({ description: 'the index it reads by (a Bitmap Heap Scan: its Bitmap Index Scans’)' }),
    subplan: z.enum(['SubPlan', 'InitPlan']).optional().openapi({ description: 'a subquery run per row, or once' }),
    rows: z.number().openapi({ description: 'the planner’s estimate of the rows it returns' }),
    cost: z.number().openapi({ description: 'its total estimated cost' }),
    children: z.array(z.any()).openapi({ description: 'the steps it reads from, each shaped as this one' }),
  })
  .strict()
const PlanRuleOutcome = z.union([
  z
    .object({
      rule: z.enum(['has', 'lacks']),
      pattern: z.string(),
      met: z.boolean(),
      nodes: z.array(z.string()).openapi({ description: 'the steps the pattern matches' }),
    })
    .strict(),
  z
    .object({
      rule: z.literal('cost'),
      factor: z.number(),
      limit: z.number().openapi({ description: 'factor × the estimated cost of the solution’s plan' }),
      cost: z.number().openapi({ description: 'the estimated cost of the caller’s plan' }),
      met: z.boolean(),
    })
    .strict(),
])
const GradedPlan = z
  .object({ tree: PlanStep, rules: z.array(PlanRuleOutcome) })
  .strict()
  .openapi({
    description:
      'plan exercises only (`check: plan`): the plan of the final query, and each rule with whether it is met',
  })
const LabExerciseState = z
  .object({ key: z.string(), title: z.string(), passed: z.boolean(), attempts: z.number().int() })
  .strict()
call({
  method: 'get',
  path: '/api/labs',
  summary: 'The SQL labs of a course, with the caller’s state of each exercise',
  description: 'An assigned learner reads the visible labs; the admin side reads every lab of any course.',
  who: 'signedIn',
  query: z.object({ courseId: uuid }),
  ok: z
    .object({
      data: z.array(
        z
          .object({
            id: uuid,
            title: z.string(),
            courseId: uuid,
            minutes: z.number().int(),
            exercises: z.array(LabExerciseState),
          })
          .strict(),
      ),
    })
    .strict(),
  refusals: [403],
})
call({
  method: 'get',
  path: '/api/labs/{labId}',
  summary: 'A lab: its description, the dataset’s tables and columns, and its exercises',
  description:
    'Each exercise with the caller’s state, and the hints the caller’s failed attempts have opened. ' +
    '`description` and `prompt` are Markdown.',
  who: 'signedIn',
  params: ids('labId'),
  ok: z
    .object({
      data: z
        .object({
          id: uuid,
          title: z.string(),
          description: z.string(),
          courseId: uuid,
          minutes: z.number().int(),
          tables: z.array(
            z
              .object({
                name: z.string(),
                columns: z.array(z.object({ name: z.string(), type: z.string() }).strict()),
              })
              .strict(),
          ),
          exercises: z.array(
            LabExerciseState.extend({
              check: z.enum(['result', 'state', 'plan', 'sessions']).openapi({
                description:
                  'how the exercise is graded: `sessions` exercises are worked in two sessions side by side ' +
                  '(the lab page), not through /attempts',
              }),
              prompt: z.string(),
              points: z.number().int(),
              hints: z.array(z.string()),
            }),
          ),
        })
        .strict(),
    })
    .strict(),
  refusals: [403, 404],
})
call({
  method: 'post',
  path: '/api/labs/{labId}/attempts',
  summary: 'Grade an attempt at one exercise, and keep it',
  description:
    'The SQL is checked by PostgreSQL’s parser, run in the labs sandbox in a transaction that is rolled back, ' +
    'and compared with what the exercise’s solution returns. SQL the database rejects is a failed attempt ' +
    '(`passed: false`, the database’s `message`, and the `position` it points at, in characters from 1). A ' +
    'statement the exercise does not take (a kind it does not allow, several where one is expected, a ' +
    'forbidden function or catalog) is a 400 naming it. A plan exercise takes setup statements (such as ' +
    '`CREATE INDEX`) then one final query: it passes when that query returns the solution’s rows and its plan ' +
    'meets every rule; its answer carries the plan and each rule’s outcome. While the caller’s previous attempt, or too many ' +
    'attempts in all, are being graded: 429 with `Retry-After`.',
  who: 'signedIn',
  params: ids('labId'),
  body: z.object({ exercise: z.string(), sql: z.string() }).strict(),
  ok: z
    .object({
      data: z
        .object({
          passed: z.boolean(),
          message: z.string(),
          columns: z.array(z.string()),
          rows: z.array(z.array(Cell)).openapi({ description: 'the first 100 rows of the caller’s result' }),
          total: z.number().int(),
          truncated: z.boolean(),
          missingRows: z.array(z.array(Cell)),
          extraRows: z.array(z.array(Cell)),
          wrongOrder: z.boolean(),
          position: z.number().int().optional(),
          plan: GradedPlan.optional(),
          ms: z.number(),
          exercise: z.string(),
          attempts: z.number().int(),
          hints: z.array(z.string()),
        })
        .strict(),
    })
    .strict(),
  refusals: [403, 404, 409, 429],
})

const SessionName = z.enum(['A', 'B'])
const Isolation = z.enum(['read committed', 'repeatable read', 'serializable'])
const HistoryBase = {
  session: SessionName,
  sql: z.string(),
  waited: z.boolean().openapi({ description: 'it waited on a lock the other session held' }),
  transaction: z.number().int().nullable().openapi({ description: 'its transaction block, counted per session' }),
  isolation: Isolation,
  ms: z.number(),
}
const PairView = z
  .object({
    id: z.string(),
    labId: uuid,
    exercise: z.string(),
    openedAt: z.string(),
    closesAt: z.string(),
    idleClosesAt: z.string(),
    sessions: z.array(
      z
        .object({
          name: SessionName,
          transaction: z.enum(['none', 'open', 'failed']),
          isolation: Isolation,
          running: z.object({ sql: z.string(), waiting: z.boolean() }).strict().nullable(),
          history: z.array(
            z.union([
              z
                .object({
                  ...HistoryBase,
                  ok: z.literal(true),
                  command: z.string(),
                  rowCount: z.number().int().nullable(),
                  columns: z.array(z.string()),
                  rows: z.array(z.array(Cell)).openapi({ description: 'the first 50 rows' }),
                  total: z.number().int(),
                })
                .strict(),
              z
                .object({ ...HistoryBase, ok: z.literal(false), code: z.string().optional(), message: z.string() })
                .strict(),
            ]),
          ),
        })
        .strict(),
    ),
  })
  .strict()
const SESSIONS_REFUSALS = [403, 404, 409, 429] as const
call({
  method: 'get',
  path: '/api/labs/{labId}/sessions',
  summary: 'The caller’s two sessions of a two-session exercise',
  description:
    'Null when none is open (for this exercise, when one is named; else in this lab). Each running statement says ' +
    'whether it waits on a lock.',
  who: 'signedIn',
  params: ids('labId'),
  query: z.object({ exercise: z.string().optional() }),
  ok: z.object({ data: PairView.nullable() }).strict(),
  refusals: [403, 404],
})
call({
  method: 'post',
  path: '/api/labs/{labId}/sessions',
  summary: 'Open two sessions for a two-session exercise (closing the caller’s others)',
  description:
    'Each session is a connection to a copy of the lab’s database of the caller’s own. They close on DELETE, ' +
    'after a few idle minutes, or at their time limit (docs/labs.md). Too many open at once: 429.',
  who: 'signedIn',
  params: ids('labId'),
  body: z.object({ exercise: z.string() }).strict(),
  ok: z.object({ data: PairView }).strict(),
  refusals: [...SESSIONS_REFUSALS],
})
call({
  method: 'delete',
  path: '/api/labs/{labId}/sessions',
  summary: 'Close the caller’s two sessions',
  description: 'Their connections end, their locks go, and their database is dropped.',
  who: 'signedIn',
  params: ids('labId'),
  ok: Message,
  refusals: [],
})
call({
  method: 'post',
  path: '/api/labs/{labId}/sessions/{session}',
  summary: 'Run one statement in session A or B',
  description:
    'Answered when it finishes, or after about 1.5 s with it still running (`running.waiting` when it waits on ' +
    'the other session’s lock); it goes on in the background. A session runs one statement at a time (409). ' +
    'Transaction control, row locks and LOCK TABLE are allowed beside the exercise’s kinds; other SQL a lab ' +
    'refuses is a 400.',
  who: 'signedIn',
  params: z.object({ labId: uuid, session: SessionName }),
  body: z.object({ exercise: z.string(), sql: z.string() }).strict(),
  ok: z.object({ data: PairView }).strict(),
  refusals: [...SESSIONS_REFUSALS],
})
call({
  method: 'post',
  path: '/api/labs/{labId}/sessions/check',
  summary: 'Grade the two sessions against the exercise’s steps, and keep the attempt',
  description: 'The sessions stay open. `step`: the first step not met, from 0.',
  who: 'signedIn',
  params: ids('labId'),
  body: z.object({ exercise: z.string() }).strict(),
  ok: z
    .object({
      data: z
        .object({
          passed: z.boolean(),
          message: z.string(),
          step: z.number().int().optional(),
          exercise: z.string(),
          attempts: z.number().int(),
          hints: z.array(z.string()),
        })
        .strict(),
    })
    .strict(),
  refusals: [403, 404, 409],
})

// ——— this document ———

call({
  method: 'get',
  path: '/api/openapi.json',
  summary: 'This document (OpenAPI 3.1)',
  description: 'Read it at /api/docs.',
  who: 'anyone',
  ok: OpenApiDocument,
})

const INFO = {
  title: `${PRODUCT_NAME} API`,
  version: '1.0.0',
  description: [
    'Send `Authorization: Bearer <token>` with the token from `POST /api/user/login`.',
    'Every refusal is a 4xx status with `{ message }`, and `errors` (field → text) when fields are wrong.',
    'A call answers any other HTTP method with 405 and an `Allow` header.',
  ].join('\n\n'),
}

// ——— /api/certificates: certificates of completion ———

const CertificateState = z.enum(['valid', 'revoked'])
const CertificateKindEnum = z.enum(['course', 'program'])
const CertificateCode = z
  .string()
  .openapi({ description: 'the certificate’s code in groups of four (7KQ2-M9XD-…); any case, spaces or none' })
const StatedCertificate = z
  .object({
    code: z.string(),
    kind: CertificateKindEnum,
    title: z.string(),
    learnerName: z.string(),
    issuerName: z.string(),
    issuedAt: z.string().datetime(),
    minutes: z.number().int(),
    state: CertificateState,
    revokedAt: z.string().datetime().nullable(),
    verifyUrl: z.string().url(),
  })
  .strict()
call({
  method: 'get',
  path: '/api/certificates',
  summary: 'Certificates: the caller’s own, or (the admin side) a learner’s',
  description:
    'The caller’s own certificates, whoever calls. The admin side names a learner with `userId` to list theirs; ' +
    'a learner naming anyone but themselves is refused (403). Narrowed by `courseId`, `programId`, `state` or ' +
    '`q` (the learner’s name, the title or the code). Newest first.',
  who: 'signedIn',
  query: z.object({
    userId: uuid.optional(),
    courseId: uuid.optional(),
    programId: uuid.optional(),
    state: CertificateState.optional(),
    q: z.string().max(200).optional(),
    limit: z.number().int().min(1).max(1000).optional(),
  }),
  ok: z
    .object({
      data: z.array(
        z
          .object({
            code: z.string(),
            title: z.string(),
            kind: CertificateKindEnum,
            issuedAt: z.string().datetime(),
            state: CertificateState,
            verifyUrl: z.string().url(),
            pdfUrl: z.string().url(),
          })
          .strict(),
      ),
    })
    .strict(),
  refusals: [403],
})
call({
  method: 'get',
  path: '/api/certificates/{code}/credential',
  summary: 'A certificate’s signed Open Badges 3.0 credential',
  description:
    '`jwt` is the credential as a VC-JWT (RS256), verifiable with the keys at `/issuer/jwks.json`; `credential` ' +
    'is what it says, decoded. The holder and the admin side only; anyone else gets a 404.',
  who: 'signedIn',
  params: z.object({ code: CertificateCode }),
  ok: z.object({ data: z.object({ jwt: z.string(), credential: z.record(z.unknown()) }).strict() }).strict(),
  refusals: [404],
})
call({
  method: 'post',
  path: '/api/certificates/verify',
  summary: 'Check a credential: valid, revoked, tampered or unknown',
  description:
    'Takes a credential as its VC-JWT text. `valid` and `revoked` come with what the certificate states; ' +
    '`tampered` is text shaped like a VC-JWT (three base64url parts joined by dots) that does not verify: its ' +
    'signature, algorithm, header or claims; `unknown` one signed by a key the portal never used, or naming no ' +
    'certificate of the portal’s. A body without `credential` as text, or text not shaped like a VC-JWT, is a 400.',
  who: 'anyone',
  body: z.object({ credential: z.string() }).strict(),
  ok: z
    .object({
      data: z.union([
        z.object({ result: z.enum(['valid', 'revoked']), certificate: StatedCertificate }).strict(),
        z.object({ result: z.enum(['tampered', 'unknown']), reason: z.string() }).strict(),
      ]),
    })
    .strict(),
})

let generated: { document: ReturnType<OpenApiGeneratorV31['generateDocument']>; text: string } | undefined

function generate() {
  if (!generated) {
    const document = new OpenApiGeneratorV31(registry.definitions).generateDocument({ openapi: '3.1.0', info: INFO })
    generated = { document, text: JSON.stringify(document) }
  }
  return generated
}

/** The document, built once per process. */
export const openApiDocument = () => generate().document
/** The same as JSON text, as GET /api/openapi.json serves it. */
export const openApiText = () => generate().text

/** Every documented call as `METHOD /path`, e.g. `GET /api/user/profile`. */
export function documentedCalls(): string[] {
  return documentedRoutes().map((r) => `${r.method.toUpperCase()} ${r.path}`)
}

/** The zod schema of a documented answer, for checking real answers against the document. */
export function documentedAnswer(method: string, path: string, status: number): ZodTypeAny {
  const route = documentedRoutes().find((r) => r.method === method.toLowerCase() && r.path === path)
  const response = route?.responses[status] as ResponseConfig | undefined
  const schema = response?.content?.['application/json']?.schema
  if (!(schema instanceof z.ZodType)) throw new Error(`No JSON answer ${status} documented for ${method} ${path}.`)
  return schema
}

const documentedRoutes = () => registry.definitions.flatMap((d) => (d.type === 'route' ? [d.route] : []))
