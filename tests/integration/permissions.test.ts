import { randomBytes } from 'node:crypto'
import { readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { Writable } from 'node:stream'
import { beforeAll, describe, expect, it } from 'vitest'
import { accessLogTotal } from '#app/modules/access-log/service.server.ts'
import { listAllAssessments, uploadAssessment } from '#app/modules/assessments/service.server.ts'
import { assignCourse as assignCourseService } from '#app/modules/assignments/service.server.ts'
import { can, PERMISSION_NAMES, PERMISSIONS, type Permission } from '#app/modules/auth/permissions.ts'
import { ROLE, SYSTEM, type Actor, type RoleId } from '#app/modules/auth/roles.ts'
import { listSignInEvents } from '#app/modules/auth/sign-ins.server.ts'
import { takeBackup } from '#app/modules/backups/backup.server.ts'
import { listBackupRuns, removeBackupSchedule } from '#app/modules/backups/schedules.server.ts'
import { signBridgeToken, signInWithBridgeLink } from '#app/modules/bridge/service.server.ts'
import {
  listCertificates,
  reissueCertificate,
  revokeCertificate,
  staffCertificates,
} from '#app/modules/certificates/service.server.ts'
import { deleteVideo } from '#app/modules/content/service.server.ts'
import { dashboardCounts, getCourseDetail, setCourseReminders } from '#app/modules/courses/admin.server.ts'
import { dashboardFigures } from '#app/modules/dashboard/service.server.ts'
import { DEFAULT_PLAN } from '#app/modules/deadlines/plan.ts'
import { readReminderSettings, saveReminderSettings } from '#app/modules/deadlines/service.server.ts'
import { isServiceError } from '#app/modules/errors.ts'
import { listRuns, removeSchedule } from '#app/modules/exports/service.server.ts'
import { receiveUpload } from '#app/modules/files/upload.server.ts'
import { jobsOverview, retryJob } from '#app/modules/jobs/service.server.ts'
import { mailQueueStatus } from '#app/modules/mail/queue.server.ts'
import { deleteProgram, getProgram } from '#app/modules/programs/service.server.ts'
import { prunePings } from '#app/modules/progress/retention.server.ts'
import { listVideosProgress, recordAccessLogPing } from '#app/modules/progress/service.server.ts'
import { listProviders } from '#app/modules/sso/providers.server.ts'
import { writeUserList } from '#app/modules/users/export.server.ts'
import { createUser, getProfile, removeAdmin } from '#app/modules/users/service.server.ts'
import * as adminLayout from '#app/routes/admin+/_layout.tsx'
import * as backupsPage from '#app/routes/admin+/backups.tsx'
import * as certificatesPage from '#app/routes/admin+/certificates.tsx'
import * as jobsPage from '#app/routes/admin+/jobs.tsx'
import * as newCoursePage from '#app/routes/admin+/newCourse.tsx'
import * as remindersPage from '#app/routes/admin+/reminders.tsx'
import * as signInsPage from '#app/routes/admin+/sign-ins.tsx'
import * as ssoPage from '#app/routes/admin+/sso.tsx'
import * as importUsersPage from '#app/routes/admin+/users_.import.tsx'
import * as assessmentListRoute from '#app/routes/api+/assignmentDocuments.getAssignmentDocuments.ts'
import * as uploadAssessmentRoute from '#app/routes/api+/assignmentDocuments.uploadAssignmentDocument.ts'
import * as accessLogRoute from '#app/routes/api+/category.accessLog.ts'
import * as addCourseDocumentRoute from '#app/routes/api+/category.addCourseDocument.ts'
import * as createCourseRoute from '#app/routes/api+/category.course.ts'
import * as courseRoute from '#app/routes/api+/category.course_.$courseId.ts'
import * as coachRoute from '#app/routes/api+/user.coach.ts'
import * as pingRoute from '#app/routes/api+/user.postAccessLog.ts'
import * as registerRoute from '#app/routes/api+/user.register.ts'
import * as userListRoute from '#app/routes/api+/user.usersList.user.ts'
import {
  assignCourse,
  makeAdmin,
  makeCourse,
  makeDocument,
  makeLearner,
  makeProgram,
  makeStoredFile,
  makeUser,
  personFields,
} from '#tests/factories.ts'
import { pdfBytes } from '#tests/fixtures/files.ts'
import { call } from '#tests/requests.ts'
import { sessionCookieFor, toastOf } from '#tests/sessions.ts'

// The permission table, checked against what the portal does: for every permission, every role (and
// the CLI's SYSTEM, where the call is a service's) makes the calls that need it, through the /api, a
// page's guard or a service, and is let through exactly when the table says so. A permission with no
// call here fails the first test, so a new permission comes with the calls that show it.

type Who = { actor: Actor; token?: string; cookie?: string; email?: string }
type Outcome = 'allowed' | 'refused'

type Case = {
  name: string
  /** the permissions the call asks for */
  exercises: Permission[]
  /** whether the table lets the caller make it: by default, when it has every permission it exercises */
  expected?: (has: (permission: Permission) => boolean) => boolean
  /** a service call, also made as the CLI's SYSTEM; the others need a signed-in user */
  via: 'service' | 'user'
  run: (who: Who) => Promise<Outcome>
}

/** A service call: through when it returns (or fails with one of `past`, after its guard), refused on a 403. */
async function service(run: () => Promise<unknown>, past: number[] = []): Promise<Outcome> {
  try {
    await run()
    return 'allowed'
  } catch (error) {
    if (isServiceError(error) && error.status === 403) return 'refused'
    if (isServiceError(error) && past.includes(error.status)) return 'allowed'
    throw error
  }
}

/** An /api answer: a 2xx is through, a 403 refused, anything else is a broken case. */
async function api(answer: Promise<Response>): Promise<Outcome> {
  const response = await answer
  const text = await response.text()
  if (response.status === 403) return 'refused'
  if (response.ok) return 'allowed'
  throw new Error(`unexpected ${response.status}: ${text}`)
}

/** A page's loader: 200 is through; a redirect with an error toast is the guard's refusal. */
async function page(answer: Promise<Response>): Promise<Outcome> {
  const response = await answer
  if (response.status === 200) return 'allowed'
  if (response.status === 302 && (await toastOf(response))?.type === 'error') return 'refused'
  throw new Error(`unexpected ${response.status} ${response.headers.get('Location')}`)
}

const unique = () => randomBytes(4).toString('hex')
const person = (role?: 'learner' | 'admin') => personFields(role ? { role } : {})
const pdf = async () => new File([new Uint8Array(await pdfBytes())], 'answer.pdf', { type: 'application/pdf' })
const multipart = (field: string, file: File) => {
  const form = new FormData()
  form.append(field, file)
  return new Request('http://portal.test/api/category/addCourseDocument', { method: 'POST', body: form })
}
const bridgeSignIn = async (who: Who, target: { kind: 'program' } | { kind: 'admin' }) => {
  const token = await signBridgeToken({ sub: who.email ?? '' })
  return service(() => signInWithBridgeLink({ token, target }))
}
const post = (route: { action: unknown }, path: string, who: Who, json: unknown, params = {}) =>
  call(route.action as never, path, { method: 'POST', json, token: who.token, params })
const get = (route: { loader: unknown }, path: string, who: Who, params = {}) =>
  call(route.loader as never, path, { token: who.token, params })
const open = (route: { loader: unknown }, path: string, who: Who) =>
  call(route.loader as never, path, { headers: { Cookie: who.cookie ?? '' } })
const ignored = () => new Writable({ write: (_chunk, _encoding, done) => done() })

let other: Awaited<ReturnType<typeof makeLearner>>

const CASES: Case[] = [
  {
    name: 'an /admin page (the layout every one of them has)',
    exercises: ['enter:admin-area'],
    via: 'user',
    run: (who) => page(open(adminLayout, '/admin/dashboard', who)),
  },
  {
    name: 'a bridge link to the admin area',
    exercises: ['sign-in:bridge', 'enter:admin-area'],
    via: 'user',
    run: (who) => bridgeSignIn(who, { kind: 'admin' }),
  },
  {
    name: 'a bridge link to the learner side',
    exercises: ['sign-in:bridge'],
    via: 'user',
    run: (who) => bridgeSignIn(who, { kind: 'program' }),
  },
  {
    name: 'the dashboard figures',
    exercises: ['read:dashboard'],
    via: 'service',
    run: ({ actor }) => service(() => dashboardFigures(actor, {})),
  },
  {
    name: 'the dashboard counts',
    exercises: ['read:dashboard'],
    via: 'service',
    run: ({ actor }) => service(() => dashboardCounts(actor)),
  },
  {
    name: 'POST /api/category/accessLog',
    exercises: ['read:access-log'],
    via: 'user',
    run: (who) => api(post(accessLogRoute, '/api/category/accessLog?page=1&size=5', who, { startDate: '2026-01-01' })),
  },
  {
    name: 'the access log total of an export',
    exercises: ['read:access-log'],
    via: 'service',
    run: ({ actor }) => service(() => accessLogTotal(actor, { startDate: '2026-01-01', endDate: '2026-01-02' })),
  },
  {
    name: 'pruning old pings',
    exercises: ['prune:access-log'],
    via: 'service',
    run: ({ actor }) => service(() => prunePings(actor, { olderThanDays: 36_500, dryRun: true })),
  },
  {
    name: 'GET /api/user/usersList/user',
    exercises: ['read:people'],
    via: 'user',
    run: (who) => api(get(userListRoute, '/api/user/usersList/user?page=1&size=5', who)),
  },
  {
    name: "another user's profile",
    exercises: ['read:people'],
    via: 'service',
    run: ({ actor }) => service(() => getProfile(actor, other.id)),
  },
  {
    name: 'a program with its learners',
    exercises: ['read:people'],
    via: 'service',
    run: async ({ actor }) => {
      const program = await makeProgram([(await makeCourse()).id])
      return service(() => getProgram(actor, program.id))
    },
  },
  {
    name: "another user's progress",
    exercises: ['read:people'],
    via: 'service',
    run: async ({ actor }) => {
      const course = await makeCourse()
      return service(() => listVideosProgress(actor, { userId: other.id, courseId: course.id }))
    },
  },
  {
    name: 'the users export',
    exercises: ['read:people'],
    via: 'service',
    run: ({ actor }) => service(() => writeUserList(actor, {}, ignored())),
  },
  {
    name: 'POST /api/user/coach',
    exercises: ['manage:people'],
    via: 'user',
    run: (who) => api(post(coachRoute, '/api/user/coach', who, person())),
  },
  {
    name: 'the Import users page',
    exercises: ['enter:admin-area', 'manage:people'],
    via: 'user',
    run: (who) => page(open(importUsersPage, '/admin/users/import', who)),
  },
  {
    name: 'creating a learner',
    exercises: ['manage:people'],
    via: 'service',
    run: ({ actor }) => service(() => createUser(actor, person('learner'))),
  },
  {
    name: 'assigning a course',
    exercises: ['manage:people'],
    via: 'service',
    run: async ({ actor }) => {
      const [learner, course] = await Promise.all([makeLearner(), makeCourse()])
      return service(() => assignCourseService(actor, { userId: learner.id, courseId: course.id }))
    },
  },
  {
    name: 'POST /api/user/register with the admin role',
    exercises: ['manage:people', 'manage:admins'],
    via: 'user',
    run: (who) => api(post(registerRoute, '/api/user/register', who, person('admin'))),
  },
  {
    name: 'creating an admin',
    exercises: ['manage:admins'],
    via: 'service',
    run: ({ actor }) => service(() => createUser(actor, person('admin'))),
  },
  {
    name: 'removing an admin',
    exercises: ['manage:admins'],
    via: 'service',
    run: async ({ actor }) => {
      const admin = await makeAdmin()
      return service(() => removeAdmin(actor, admin.id))
    },
  },
  {
    name: 'the record of sign-ins',
    exercises: ['read:sign-ins'],
    via: 'service',
    run: ({ actor }) => service(() => listSignInEvents(actor, {})),
  },
  {
    name: 'POST /api/category/course',
    exercises: ['update:content'],
    via: 'user',
    run: async (who) => {
      const courseImage = await makeStoredFile('course_image')
      return api(post(createCourseRoute, '/api/category/course', who, { title: 'T', description: 'D', courseImage }))
    },
  },
  {
    name: 'the New Course page',
    exercises: ['enter:admin-area', 'update:content'],
    via: 'user',
    run: (who) => page(open(newCoursePage, '/admin/newCourse', who)),
  },
  {
    name: 'deleting a video',
    exercises: ['update:content'],
    via: 'service',
    run: async ({ actor }) => {
      const course = await makeCourse({ videos: [{}] })
      return service(() => deleteVideo(actor, course.id, course.videos[0].id))
    },
  },
  {
    name: 'deleting a program',
    exercises: ['update:content'],
    via: 'service',
    run: async ({ actor }) => {
      const program = await makeProgram([(await makeCourse()).id])
      return service(() => deleteProgram(actor, { programId: program.id }))
    },
  },
  {
    name: 'POST /api/category/addCourseDocument (a course document or an assessment, by role)',
    exercises: ['update:content', 'upload:assessment:own'],
    expected: (has) => has('update:content') || has('upload:assessment:own'),
    via: 'user',
    run: async (who) => {
      const form = new FormData()
      form.append('courseDocument', await pdf())
      return api(call(addCourseDocumentRoute.action as never, '/x', { method: 'POST', body: form, token: who.token }))
    },
  },
  {
    name: 'GET /api/category/course/{courseId} of a course assigned to nobody',
    exercises: ['read:course:any'],
    via: 'user',
    run: async (who) => {
      const course = await makeCourse({ videos: [{ visibility: false }] })
      return api(get(courseRoute, `/api/category/course/${course.id}`, who, { courseId: course.id }))
    },
  },
  {
    name: 'a course assigned to nobody',
    exercises: ['read:course:any'],
    via: 'service',
    run: async ({ actor }) => {
      const course = await makeCourse()
      return service(() => getCourseDetail(actor, course.id))
    },
  },
  {
    name: 'a course assigned to the caller (the admin side opens any course anyway)',
    exercises: ['read:course:assigned'],
    expected: (has) => has('read:course:assigned') || has('read:course:any'),
    via: 'service',
    run: async ({ actor }) => {
      const course = await makeCourse()
      if (actor.id) await assignCourse(actor.id, course.id)
      return service(() => getCourseDetail(actor, course.id))
    },
  },
  {
    name: 'POST /api/user/postAccessLog',
    exercises: ['record:progress:own'],
    via: 'user',
    run: (who) => api(post(pingRoute, '/api/user/postAccessLog', who, { pageName: 'My Courses' })),
  },
  {
    name: 'an access-log ping',
    exercises: ['record:progress:own'],
    via: 'service',
    run: ({ actor }) => service(() => recordAccessLogPing(actor, { pageName: 'Explore Courses' })),
  },
  {
    name: 'POST /api/assignmentDocuments/uploadAssignmentDocument',
    exercises: ['upload:assessment:own'],
    via: 'user',
    run: async (who) => {
      const course = await makeCourse()
      await assignCourse(who.actor.id ?? '', course.id)
      const scenario = await makeDocument(course.id, { kind: 'scenario' })
      const file = await makeStoredFile('assessment', { uploadedBy: who.actor.id })
      const input = { courseId: course.id, relatedScenarioId: scenario.id, document: file.key }
      return api(post(uploadAssessmentRoute, '/api/assignmentDocuments/uploadAssignmentDocument', who, input))
    },
  },
  {
    name: 'registering an uploaded assessment',
    exercises: ['upload:assessment:own'],
    via: 'service',
    run: async ({ actor }) => {
      const course = await makeCourse()
      const scenario = await makeDocument(course.id, { kind: 'scenario' })
      if (actor.id) await assignCourse(actor.id, course.id)
      const file = await makeStoredFile('assessment', { uploadedBy: actor.id })
      return service(() =>
        uploadAssessment(actor, { courseId: course.id, relatedScenarioId: scenario.id, document: file.key }),
      )
    },
  },
  {
    name: 'receiving an assessment file',
    exercises: ['upload:assessment:own'],
    via: 'service',
    run: async ({ actor }) => {
      const request = multipart('courseDocument', await pdf())
      return service(() => receiveUpload(request, { kind: 'assessment', fileFields: ['courseDocument'], actor }))
    },
  },
  {
    name: 'GET /api/assignmentDocuments/getAssignmentDocuments',
    exercises: ['review:assessment'],
    via: 'user',
    run: (who) => api(get(assessmentListRoute, '/api/assignmentDocuments/getAssignmentDocuments?page=1&size=5', who)),
  },
  {
    name: "every learner's assessments",
    exercises: ['review:assessment'],
    via: 'service',
    run: ({ actor }) => service(() => listAllAssessments(actor, { limit: 5 })),
  },
  {
    name: 'the mail queue',
    exercises: ['read:mail-queue'],
    via: 'service',
    run: ({ actor }) => service(() => mailQueueStatus(actor, {})),
  },
  {
    name: 'the runs of scheduled exports',
    exercises: ['read:exports'],
    via: 'service',
    run: ({ actor }) => service(() => listRuns(actor, {})),
  },
  {
    name: 'the background jobs',
    exercises: ['read:jobs'],
    via: 'service',
    run: ({ actor }) => service(() => jobsOverview(actor)),
  },
  {
    name: 'the Jobs page',
    exercises: ['read:jobs'],
    via: 'user',
    run: (who) => page(open(jobsPage, '/admin/jobs', who)),
  },
  {
    name: 'retrying a job (there is none of that id: 404 once past the guard)',
    exercises: ['manage:jobs'],
    via: 'service',
    run: ({ actor }) => service(() => retryJob(actor, '00000000-0000-4000-8000-000000000000'), [404]),
  },
  {
    name: 'removing a scheduled export (there is none of that name: 404 once past the guard)',
    exercises: ['manage:exports'],
    via: 'service',
    run: ({ actor }) => service(() => removeSchedule(actor, `none-${unique()}`), [404]),
  },
  {
    name: 'the runs of scheduled backups',
    exercises: ['read:backups'],
    via: 'service',
    run: ({ actor }) => service(() => listBackupRuns(actor, {})),
  },
  {
    name: 'the Backups page',
    exercises: ['enter:admin-area', 'read:backups'],
    via: 'user',
    run: (who) => page(open(backupsPage, '/admin/backups', who)),
  },
  {
    name: 'removing a scheduled backup (there is none of that name: 404 once past the guard)',
    exercises: ['manage:backups'],
    via: 'service',
    run: ({ actor }) => service(() => removeBackupSchedule(actor, `none-${unique()}`), [404]),
  },
  {
    name: 'taking a backup (into a folder that is not there: 400 once past the guard)',
    exercises: ['manage:backups'],
    via: 'service',
    run: ({ actor }) => service(() => takeBackup(actor, { to: `/nonexistent-${unique()}/backup.tar.zst` }), [400]),
  },
  {
    name: 'another learner’s certificates',
    exercises: ['read:certificates'],
    via: 'service',
    run: ({ actor }) => service(() => listCertificates(actor, { userId: other.id })),
  },
  {
    name: 'one’s own certificates (the admin side reads everyone’s)',
    exercises: ['read:certificates:own'],
    expected: (has) => has('read:certificates:own') || has('read:certificates'),
    via: 'service',
    run: ({ actor }) => service(() => listCertificates(actor, {})),
  },
  {
    name: 'revoking a certificate (there is none of that code: 404 once past the guard)',
    exercises: ['manage:certificates'],
    via: 'service',
    run: ({ actor }) =>
      service(() => revokeCertificate(actor, '0000-0000-0000-0000-0000-0000-00', { reason: 'x' }), [404]),
  },
  {
    name: 're-issuing a certificate (there is none of that code: 404 once past the guard)',
    exercises: ['manage:certificates'],
    via: 'service',
    run: ({ actor }) => service(() => reissueCertificate(actor, '0000-0000-0000-0000-0000-0000-00'), [404]),
  },
  {
    name: 'the Certificates page’s list (a learner is refused, not shown their own)',
    exercises: ['read:certificates'],
    via: 'service',
    run: ({ actor }) => service(() => staffCertificates(actor, {}, { offset: 0, limit: 7 })),
  },
  {
    name: 'the Certificates page',
    exercises: ['enter:admin-area', 'read:certificates'],
    via: 'user',
    run: (who) => page(open(certificatesPage, '/admin/certificates', who)),
  },
  {
    name: 'the Sign-ins page',
    exercises: ['enter:admin-area', 'read:sign-ins'],
    via: 'user',
    run: (who) => page(open(signInsPage, '/admin/sign-ins', who)),
  },
  {
    name: 'the identity providers',
    exercises: ['manage:identity-providers'],
    via: 'service',
    run: ({ actor }) => service(() => listProviders(actor)),
  },
  {
    name: 'the Company sign-in page',
    exercises: ['enter:admin-area', 'manage:identity-providers'],
    via: 'user',
    run: (who) => page(open(ssoPage, '/admin/sso', who)),
  },
  {
    name: 'the reminder settings',
    exercises: ['read:reminders'],
    via: 'service',
    run: ({ actor }) => service(() => readReminderSettings(actor)),
  },
  {
    name: 'the Reminders page',
    exercises: ['enter:admin-area', 'read:reminders'],
    via: 'user',
    run: (who) => page(open(remindersPage, '/admin/reminders', who)),
  },
  {
    name: 'saving the reminder settings (the default plan again: nothing changes)',
    exercises: ['manage:reminders'],
    via: 'service',
    run: ({ actor }) => service(() => saveReminderSettings(actor, { plan: DEFAULT_PLAN, learnersMayOptOut: false })),
  },
  {
    name: 'a course’s reminders switch (there is no course of that id: 404 once past the guard)',
    exercises: ['manage:reminders'],
    via: 'service',
    run: ({ actor }) =>
      service(() => setCourseReminders(actor, '00000000-0000-4000-8000-000000000000', { reminders: true }), [404]),
  },
]

const ROLE_IDS = Object.entries(ROLE) as [keyof typeof ROLE, RoleId][]
const callers = new Map<string, Who>()

beforeAll(async () => {
  other = await makeLearner()
  for (const [name, roleId] of ROLE_IDS) {
    const user = await makeUser({ roleId })
    callers.set(name, {
      actor: { id: user.id, roleId },
      token: user.token,
      cookie: await sessionCookieFor(user.userName),
      email: user.email,
    })
  }
  callers.set('SYSTEM', { actor: SYSTEM })
})

const expectedFor = (c: Case, actor: Actor) =>
  (c.expected ?? ((has) => c.exercises.every(has)))((permission) => can(actor, permission))

describe('the permission table against the portal', () => {
  it('has calls here for every permission in the table, and names only permissions of the table', () => {
    const exercised = new Set(CASES.flatMap((c) => c.exercises))
    expect(PERMISSION_NAMES.filter((p) => !exercised.has(p))).toEqual([])
    expect([...exercised].filter((p) => !(p in PERMISSIONS))).toEqual([])
  })

  describe.each(PERMISSION_NAMES)('%s', (permission) => {
    const cases = CASES.filter((c) => c.exercises.includes(permission))
    const callerNames = [...ROLE_IDS.map(([name]) => name), 'SYSTEM']
    for (const c of cases)
      for (const caller of callerNames) {
        if (caller === 'SYSTEM' && c.via !== 'service') continue
        it(`${c.name}: ${caller}`, async () => {
          const who = callers.get(caller)!
          const expected = expectedFor(c, who.actor) ? 'allowed' : 'refused'
          expect(await c.run(who)).toBe(expected)
        })
      }
  })
})

describe('pages and components', () => {
  // what the signed-in person may see or do is asked of the table; a page that compares their role
  // itself (`user.roleId === ROLE.learner`) would drift from it. A record's role (a row of a people
  // list, a profile) may still be read for what it shows.
  const ui = ['app/routes', 'app/components'].flatMap((dir) =>
    readdirSync(path.resolve(import.meta.dirname, '../..', dir), { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isFile() && /\.tsx?$/.test(entry.name) && !/\.test\.tsx?$/.test(entry.name))
      .map((entry) => path.join(entry.parentPath, entry.name)),
  )

  it("never compare the signed-in person's role themselves", () => {
    const compared = ui.flatMap((file) =>
      readFileSync(file, 'utf8')
        .split('\n')
        .flatMap((line, i) =>
          /\b(user|actor|me|viewer)\??\.roleId\s*[!=]==?|ROLE\.\w+\s*[!=]==?\s*(user|actor)\??\.roleId/.test(line)
            ? [`${path.relative(process.cwd(), file)}:${i + 1}`]
            : [],
        ),
    )
    expect(ui.length).toBeGreaterThan(50)
    expect(compared).toEqual([])
  })
})
