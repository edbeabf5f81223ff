import path from 'node:path'
import { QueryTypes, type Transaction } from 'sequelize'
import { hashPassword } from '#app/modules/auth/password.server.ts'
import { ROLE_BY_NAME, SYSTEM } from '#app/modules/auth/roles.ts'
import { storeFile } from '#app/modules/files/service.server.ts'
import { storage } from '#app/modules/files/storage.server.ts'
import { readLabFolder } from '#app/modules/labs/folder.server.ts'
import { importLab } from '#app/modules/labs/service.server.ts'
import { NewUserSchema } from '#app/modules/users/schema.ts'
import { PRODUCT_NAME } from '#app/utils/brand.ts'
import { db, sequelize } from '#db/client.ts'
import { demoFile } from './assets.ts'
import { DEMO_ACCOUNTS, DEMO_COURSES, DEMO_PASSWORD, DEMO_PROGRAM, embedUrl, type DemoCourse } from './demo-content.ts'

// Demo content for a fresh installation: courses, a program, one account per role
// and some progress, so every screen has something to show on first start.

export { DEMO_ACCOUNTS, DEMO_PASSWORD } from './demo-content.ts'

const DEMO_FLAG = 'demo_seeded'
// Any number, distinct from the migration lock: it only has to be the same for every process that seeds.
const SEED_LOCK = 7_305_002

type CourseSlug = DemoCourse['slug']

/** Who gets what: learner 1 has two courses directly and the program, which adds a third. */
const DIRECT_ASSIGNMENTS: Record<string, CourseSlug[]> = { learner1: ['sql', 'modelling'], learner2: ['sql'] }
const PROGRAM_LEARNERS = ['learner1']

/**
 * Due dates, in days from the day of the first start (each due at the end of that day in the learner's time
 * zone): learner 1's SQL course in five days and the program in three weeks, the modelling course (which
 * they completed) a week ago; learner 2's SQL course two days ago, so it is overdue.
 */
const DUE_IN_DAYS: Record<string, Partial<Record<CourseSlug | 'program', number>>> = {
  learner1: { sql: 5, modelling: -7, program: 21 },
  learner2: { sql: -2 },
}

/** The calendar day `days` from today (UTC), as YYYY-MM-DD. */
function dueDay(days: number | undefined): string | null {
  if (days === undefined) return null
  return new Date(Date.now() + days * 24 * 60 * 60 * 1000).toISOString().slice(0, 10)
}

/**
 * Learner 1's viewing, so My Courses shows different percentages, a prerequisite lock and a completed course:
 * [course, video index, seconds watched]. Watching at least 90 % completes a video; the modelling course is
 * watched to the end, and as it gives certificates, learner 1 holds one a minute after the first start.
 */
const PROGRESS: [CourseSlug, number, number][] = [
  ['sql', 0, 143],
  ['sql', 1, 157],
  ['sql', 2, 360],
  ['modelling', 0, 540],
  ['modelling', 1, 660],
  ['modelling', 2, 600],
  ['modelling', 3, 900],
  ['modelling', 4, 480],
]

/** Certificates are off by default; the demo switches them on for one course and the program. */
const CERTIFICATE_COURSES: CourseSlug[] = ['modelling']

/**
 * Seeds demo content once per database: returns { seeded: false } if the settings row key 'demo_seeded' exists.
 * A database that already holds users or courses is never seeded (demo accounts have a published
 * password); it is marked so that the check is not repeated.
 */
export async function seedDemoOnce(log: (line: string) => void = () => {}): Promise<{ seeded: boolean }> {
  const { Setting } = await db()
  // the common case on every start after the first: no lock, no hashing, no reading of files
  if (await Setting.findByPk(DEMO_FLAG)) return { seeded: false }

  const accounts = await prepareAccounts()
  const assets = await readAssets()

  const written: string[] = []
  let seeded: { seeded: boolean }
  try {
    seeded = await (
      await sequelize()
    ).transaction(async (transaction) => {
      await (
        await sequelize()
      ).query('SELECT pg_advisory_xact_lock(:lock)', {
        replacements: { lock: SEED_LOCK },
        type: QueryTypes.SELECT,
        transaction,
      })
      if (await Setting.findByPk(DEMO_FLAG, { transaction })) return { seeded: false }
      if (await holdsData(transaction)) {
        await Setting.create(
          { key: DEMO_FLAG, value: { at: new Date().toISOString(), skipped: 'not empty' } },
          { transaction },
        )
        log('demo content skipped: the database already has users or courses')
        return { seeded: false }
      }
      await insertDemo({ accounts, assets, transaction, written })
      await Setting.create({ key: DEMO_FLAG, value: { at: new Date().toISOString() } }, { transaction })
      log(`demo content seeded: ${DEMO_COURSES.length} courses, 1 program, ${DEMO_ACCOUNTS.length} accounts`)
      return { seeded: true }
    })
  } catch (error) {
    await removeFiles(written)
    throw error
  }
  if (seeded.seeded) await seedDemoLabs(log)
  return seeded
}

/** The demo's SQL labs (db/seeds/labs/): each folder imported into its course, as `portal labs import` does. */
const DEMO_LABS = [
  { folder: 'sql-fundamentals', course: 'SQL Fundamentals' },
  { folder: 'data-warehousing', course: 'Data Warehousing and Dimensional Design' },
  { folder: 'transactions', course: 'Data Warehousing and Dimensional Design' },
] as const

/**
 * Built after the rest is committed: a lab is built in the labs sandbox, outside the portal's transaction. A
 * server where the portal may not create databases and roles (a managed DATABASE_URL) gets the demo without
 * its labs, and says so.
 */
async function seedDemoLabs(log: (line: string) => void) {
  for (const lab of DEMO_LABS) {
    try {
      const folder = await readLabFolder(path.join(import.meta.dirname, 'labs', lab.folder))
      const imported = await importLab(SYSTEM, { folder, course: lab.course })
      log(`demo lab "${imported.title}" built in ${(imported.buildMs / 1000).toFixed(1)} s`)
    } catch (error) {
      log(`demo lab ${lab.folder} not built: ${(error as Error).message}`)
    }
  }
}

type PreparedAccount = (typeof DEMO_ACCOUNTS)[number] & { passwordHash: string }

// Demo accounts obey the same rules as accounts created by an admin.
async function prepareAccounts(): Promise<PreparedAccount[]> {
  const prepared: PreparedAccount[] = []
  for (const account of DEMO_ACCOUNTS) {
    const data = NewUserSchema.parse({ ...account, password: DEMO_PASSWORD })
    prepared.push({ ...account, email: data.email.toLowerCase(), passwordHash: await hashPassword(data.password) })
  }
  return prepared
}

type Assets = {
  courseImages: Map<CourseSlug, Buffer>
  programImage: Buffer
  files: Map<string, Buffer>
}

async function readAssets(): Promise<Assets> {
  const files = new Map<string, Buffer>()
  for (const course of DEMO_COURSES) {
    for (const file of course.files) files.set(file.fileName, await demoFile(file.fileName))
  }
  const courseImages = new Map<CourseSlug, Buffer>()
  for (const course of DEMO_COURSES) courseImages.set(course.slug, await demoFile(`${course.slug}.png`))
  return { courseImages, programImage: await demoFile(`${DEMO_PROGRAM.path}.png`), files }
}

async function holdsData(transaction: Transaction) {
  const { User, Course } = await db()
  return (await User.count({ transaction })) > 0 || (await Course.count({ transaction })) > 0
}

async function insertDemo({
  accounts,
  assets,
  transaction,
  written,
}: {
  accounts: PreparedAccount[]
  assets: Assets
  transaction: Transaction
  /** keys of stored files, so a failed seed can remove them */
  written: string[]
}) {
  const models = await db()
  const { User, Course, ContentEntry, VideoPrerequisite, Program, ProgramCourse } = models
  const { CourseAssignment, ProgramAssignment, VideoAudit } = models
  // storeFile writes its row on its own connection, outside this transaction
  const store = async (
    purpose: 'course_image' | 'program_image' | 'document',
    name: string,
    contentType: string,
    body: Buffer,
  ) => {
    const file = await storeFile({ purpose, name, contentType, body, uploadedBy: null })
    written.push(file.key)
    return file.key
  }

  const users = new Map<string, string>()
  for (const account of accounts) {
    const user = await User.create(
      {
        firstName: account.firstName,
        lastName: account.lastName,
        userName: account.userName,
        email: account.email,
        passwordHash: account.passwordHash,
        roleId: ROLE_BY_NAME[account.role],
      },
      { transaction },
    )
    users.set(account.userName, user.id)
  }
  const assignedBy = users.get('admin') ?? null

  const courses = new Map<CourseSlug, { id: string; videos: { id: string; duration: number }[] }>()
  for (const demo of DEMO_COURSES) {
    const image = assets.courseImages.get(demo.slug)
    const imageKey = image ? await store('course_image', `${demo.title}.png`, 'image/png', image) : null
    const certificates = CERTIFICATE_COURSES.includes(demo.slug)
    const course = await Course.create(
      {
        title: demo.title,
        description: demo.description,
        imageKey,
        certificates,
        certificateIssuer: certificates ? PRODUCT_NAME : '',
      },
      { transaction },
    )

    const videos: { id: string; duration: number }[] = []
    for (const [orderId, video] of demo.videos.entries()) {
      const entry = await ContentEntry.create(
        {
          courseId: course.id,
          kind: 'video',
          orderId,
          title: video.title,
          description: video.description,
          preview: video.preview ?? false,
          embedUrl: embedUrl(video.youtubeId),
          duration: video.duration,
        },
        { transaction },
      )
      videos.push({ id: entry.id, duration: video.duration })
      for (const prerequisite of video.prerequisites ?? []) {
        if (prerequisite >= orderId) throw new Error(`Demo video "${video.title}" needs a later video first`)
        await VideoPrerequisite.create(
          { videoId: entry.id, prerequisiteId: videos[prerequisite].id, courseId: course.id },
          { transaction },
        )
      }
    }

    // documents and scenarios are ordered separately, each from zero, as the course page lists them
    const nextOrder = { document: 0, scenario: 0 }
    for (const file of demo.files) {
      const body = assets.files.get(file.fileName)
      if (!body) throw new Error(`Demo file "${file.fileName}" was not read`)
      const fileKey = await store('document', file.fileName, 'application/pdf', body)
      await ContentEntry.create(
        { courseId: course.id, kind: file.kind, orderId: nextOrder[file.kind]++, title: file.fileName, fileKey },
        { transaction },
      )
    }
    courses.set(demo.slug, { id: course.id, videos })
  }
  const courseId = (slug: CourseSlug) => {
    const course = courses.get(slug)
    if (!course) throw new Error(`Unknown demo course ${slug}`)
    return course.id
  }

  const programImageKey = await store('program_image', `${DEMO_PROGRAM.title}.png`, 'image/png', assets.programImage)
  const program = await Program.create(
    {
      title: DEMO_PROGRAM.title,
      description: DEMO_PROGRAM.description,
      path: DEMO_PROGRAM.path,
      learningPath: DEMO_PROGRAM.learningPath,
      duration: DEMO_PROGRAM.duration,
      price: DEMO_PROGRAM.price,
      imageKey: programImageKey,
      certificates: true,
      certificateIssuer: PRODUCT_NAME,
    },
    { transaction },
  )
  for (const [position, slug] of DEMO_PROGRAM.courses.entries()) {
    await ProgramCourse.create({ programId: program.id, courseId: courseId(slug), position }, { transaction })
  }

  for (const [userName, slugs] of Object.entries(DIRECT_ASSIGNMENTS)) {
    const userId = users.get(userName)
    if (!userId) throw new Error(`Unknown demo account ${userName}`)
    for (const slug of slugs)
      await CourseAssignment.create(
        { userId, courseId: courseId(slug), assignedBy, dueDate: dueDay(DUE_IN_DAYS[userName]?.[slug]) },
        { transaction },
      )
  }
  for (const userName of PROGRAM_LEARNERS) {
    const userId = users.get(userName)
    if (!userId) throw new Error(`Unknown demo account ${userName}`)
    await ProgramAssignment.create(
      { userId, programId: program.id, assignedBy, dueDate: dueDay(DUE_IN_DAYS[userName]?.program) },
      { transaction },
    )
  }

  const learnerId = users.get('learner1')
  if (!learnerId) throw new Error('Unknown demo account learner1')
  const sql = await sequelize()
  for (const [index, [slug, videoIndex, seconds]] of PROGRESS.entries()) {
    const course = courses.get(slug)
    const video = course?.videos[videoIndex]
    if (!course || !video) throw new Error(`Unknown demo video ${slug}#${videoIndex}`)
    const watched = Math.min(seconds, video.duration)
    const completed = watched >= 0.9 * video.duration
    // spread over the last days, oldest first, so "last viewed" in the reports looks like real use
    const daysAgo = PROGRESS.length - index
    // one bit per second of the video, the first `watched` of them played (ADR 004)
    await sql.query(
      `INSERT INTO video_progress
         (user_id, video_id, course_id, watched, watched_seconds, last_position, completed, completed_at, created_at, updated_at)
       VALUES (:userId, :videoId, :courseId, (repeat('1', :watched) || repeat('0', :rest))::varbit, :watched, :position,
               :completed, CASE WHEN :completed THEN now() - make_interval(days => :daysAgo) END,
               now() - make_interval(days => :daysAgo), now() - make_interval(days => :daysAgo))`,
      {
        replacements: {
          userId: learnerId,
          videoId: video.id,
          courseId: course.id,
          watched,
          rest: video.duration - watched,
          position: completed ? video.duration : watched,
          completed,
          daysAgo,
        },
        transaction,
      },
    )
    await VideoAudit.create(
      {
        userId: learnerId,
        videoId: video.id,
        courseId: course.id,
        videoDuration: video.duration,
        videoProgress: watched,
        lastViewedAt: new Date(Date.now() - daysAgo * 86_400_000),
      },
      { transaction },
    )
  }
}

/** After a failed seed: the rows storeFile committed on its own, then the bodies. */
async function removeFiles(keys: string[]) {
  if (keys.length === 0) return
  try {
    const { StoredFile } = await db()
    await StoredFile.destroy({ where: { key: keys } })
  } catch {
    // the seed's own error is the one worth reporting; a leftover row only wastes a little space
  }
  for (const key of keys)
    await storage()
      .remove(key)
      .catch(() => undefined)
}
