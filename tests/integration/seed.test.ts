import { existsSync } from 'node:fs'
import path from 'node:path'
import { QueryTypes } from 'sequelize'
import { describe, expect, it } from 'vitest'
import { SYSTEM } from '#app/modules/auth/roles.ts'
import { login } from '#app/modules/auth/service.server.ts'
import { issueDueCertificates } from '#app/modules/certificates/issue.server.ts'
import { listCertificates } from '#app/modules/certificates/service.server.ts'
import { listAssignedCourses } from '#app/modules/courses/learner.server.ts'
import { closeSandbox } from '#app/modules/labs/sandbox.server.ts'
import { attemptExercise, listLabs } from '#app/modules/labs/service.server.ts'
import { getEnv } from '#app/utils/env.server.ts'
import { db, sequelize as sql } from '#db/client.ts'
import { DEMO_ACCOUNTS, DEMO_PASSWORD, seedDemoOnce } from '#db/seeds/demo.ts'

describe('the demo content', () => {
  it('is seeded once on a fresh database, with real files, prerequisites, a preview and progress', async () => {
    expect(await seedDemoOnce()).toEqual({ seeded: true })
    const { Course, ContentEntry, User, Program, StoredFile, VideoPrerequisite } = await db()
    expect(await Course.count()).toBe(4)
    expect(await Program.count()).toBe(1)
    expect(await User.count()).toBe(DEMO_ACCOUNTS.length)
    expect(await VideoPrerequisite.count()).toBeGreaterThan(0)
    expect(await ContentEntry.count({ where: { kind: 'video', preview: true } })).toBeGreaterThan(0)
    const perCourse = await ContentEntry.count({ where: { kind: 'video' }, group: ['courseId'] })
    for (const { count } of perCourse) expect(count).toBeGreaterThanOrEqual(4)
    for (const video of await ContentEntry.findAll({ where: { kind: 'video' } })) {
      expect(video.embedUrl).toMatch(/^https:\/\/www\.youtube-nocookie\.com\/embed\/[\w-]{11}$/)
      expect(video.duration).toBeGreaterThan(0)
    }

    // every stored file is on disk and documents are real PDFs
    const uploads = path.join(getEnv().DATA_DIR, 'uploads')
    for (const file of await StoredFile.findAll()) expect(existsSync(path.join(uploads, file.key))).toBe(true)
    expect(await StoredFile.count({ where: { purpose: 'document', contentType: 'application/pdf' } })).toBeGreaterThan(
      3,
    )

    // the demo accounts sign in with the printed password; learner 1 has progress to show
    for (const account of DEMO_ACCOUNTS) await login({ email: account.userName, password: DEMO_PASSWORD })
    const { user } = await login({ email: 'learner1', password: DEMO_PASSWORD })
    const cards = await listAssignedCourses(user)
    // SQL Fundamentals: 20 % of its videos watched, its 45-minute lab not tried; data modelling watched to the end
    expect(cards.map((c) => [c.title, c.percent])).toEqual(
      expect.arrayContaining([
        ['SQL Fundamentals', 11],
        ['Data Modelling for Relational Databases', 100],
        ['Data Warehousing and Dimensional Design', 0],
      ]),
    )

    // certificates are on for the completed course and the program only; the job runner issues learner 1's
    expect((await Course.findAll({ where: { certificates: true } })).map((c) => c.title)).toEqual([
      'Data Modelling for Relational Databases',
    ])
    expect(await Program.count({ where: { certificates: true } })).toBe(1)
    expect(await issueDueCertificates()).toBe(1)
    const held = await listCertificates(user, { userId: user.id })
    expect(held.map((c) => [c.kind, c.title, c.state, c.learnerName])).toEqual([
      ['course', 'Data Modelling for Relational Databases', 'valid', 'Lena Fischer'],
    ])

    // due dates from the day of the first start: learner 1's SQL course in five days, the completed modelling
    // course a week ago, the program in three weeks; learner 2's SQL course two days ago (overdue)
    const day = (days: number) => new Date(Date.now() + days * 24 * 60 * 60 * 1000).toISOString().slice(0, 10)
    const [courseDue, programDue] = await Promise.all([
      sql().then((s) =>
        s.query(
          `SELECT u.user_name AS who, c.title AS what, to_char(a.due_date, 'YYYY-MM-DD') AS due
             FROM course_assignments a JOIN users u ON u.id = a.user_id JOIN courses c ON c.id = a.course_id
            ORDER BY 1, 2`,
          { type: QueryTypes.SELECT },
        ),
      ),
      sql().then((s) =>
        s.query(`SELECT to_char(due_date, 'YYYY-MM-DD') AS due FROM program_assignments`, { type: QueryTypes.SELECT }),
      ),
    ])
    expect(courseDue).toEqual([
      { who: 'learner1', what: 'Data Modelling for Relational Databases', due: day(-7) },
      { who: 'learner1', what: 'SQL Fundamentals', due: day(5) },
      { who: 'learner2', what: 'SQL Fundamentals', due: day(-2) },
    ])
    expect(programDue).toEqual([{ due: day(21) }])

    expect(await seedDemoOnce()).toEqual({ seeded: false })
    expect(await Course.count()).toBe(4)
  })

  it('ships three SQL labs, built and graded in the sandbox', async () => {
    const labs = await listLabs(SYSTEM)
    expect(labs.map((l) => [l.courseTitle, l.title, l.exercises])).toEqual([
      ['Data Warehousing and Dimensional Design', 'Data warehousing', expect.any(Number)],
      // the two-session lab: its solutions ran through pairs of sessions when it was built
      ['Data Warehousing and Dimensional Design', 'Transactions and locks', 3],
      ['SQL Fundamentals', 'SQL Fundamentals', expect.any(Number)],
    ])
    for (const lab of labs.filter((l) => l.title !== 'Transactions and locks'))
      expect(lab.exercises).toBeGreaterThanOrEqual(8)
    const { user: learner } = await login({ email: 'learner1', password: DEMO_PASSWORD })
    const sql = labs.find((l) => l.title === 'SQL Fundamentals')!
    const attempt = await attemptExercise(learner, { labId: sql.id, exercise: 'missing-emails', sql: 'SELECT 1 AS x' })
    expect(attempt).toMatchObject({ passed: false, attempts: 1 })
    await closeSandbox()
  })
})
