import { simpleParser, type ParsedMail } from 'mailparser'
import { SMTPServer } from 'smtp-server'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { assignCourse, assignProgram } from '#app/modules/assignments/service.server.ts'
import { SYSTEM } from '#app/modules/auth/roles.ts'
import { saveReminderSettings } from '#app/modules/deadlines/service.server.ts'
import { runReminderSweep } from '#app/modules/deadlines/sweep.server.ts'
import { sendQueuedMail, type MailClock } from '#app/modules/mail/queue.server.ts'
import { resetMailTransport } from '#app/modules/mail/service.server.ts'
import { resetEnvCache } from '#app/utils/env.server.ts'
import { select } from '#db/client.ts'
import { makeCourse, makeLab, makeLearner, makeProgram, recordLabAttempt, recordWatched } from '#tests/factories.ts'
import { tryOf } from '#tests/jobs.ts'
import { freePort } from '#tests/setup/global.ts'

// The reminder mail, sent by a try of its job to a loopback SMTP server: what it says (the due date in the
// learner's words and zone, their real progress, the link), and that it is cancelled, not sent, when it is
// no longer owed by the time it goes out.

let server: SMTPServer
const received: ParsedMail[] = []

beforeAll(async () => {
  const port = await freePort()
  server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, _session, callback) {
      simpleParser(stream)
        .then((mail) => received.push(mail))
        .then(() => callback(), callback)
    },
  })
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve))
  process.env.SMTP_URL = `smtp://127.0.0.1:${port}`
  resetEnvCache()
  resetMailTransport()
})

afterAll(async () => {
  delete process.env.SMTP_URL
  resetEnvCache()
  resetMailTransport()
  await new Promise<void>((resolve) => server.close(() => resolve()))
})

beforeEach(() => {
  received.length = 0
})

afterEach(() => saveReminderSettings(SYSTEM, {}))

/** A clock standing at `iso` (the mail's words are written for that moment). */
const clockAt = (iso: string): MailClock => ({ now: () => new Date(iso), wait: async () => {} })

type MailRow = { id: string; status: string; last_error: string | null }

/** Sweep at `iso`, then send each reminder mail it queued for the learner at that moment; the mail rows after. */
async function sweepAndSend(userId: string, iso: string, before?: () => Promise<void>) {
  await runReminderSweep({ now: new Date(iso) })
  const rows = await select<{ id: string }>(
    `SELECT id FROM mail_queue WHERE user_id = $1 AND kind = 'reminder' AND status = 'pending' ORDER BY created_at`,
    [userId],
  )
  await before?.()
  for (const row of rows) await sendQueuedMail(tryOf(row.id), clockAt(iso))
  return select<MailRow>(`SELECT id, status, last_error FROM mail_queue WHERE id = ANY($1::uuid[])`, [
    rows.map((r) => r.id),
  ])
}

const to = (email: string) => received.filter((mail) => JSON.stringify(mail.to).includes(email))

async function learnerIn(zone: string) {
  const learner = await makeLearner()
  await select('UPDATE users SET time_zone = $2 WHERE id = $1 RETURNING id', [learner.id, zone])
  return learner
}

describe('a course reminder', () => {
  it('says when it is due in the learner zone, how far they are in videos and labs, and links the course', async () => {
    const learner = await learnerIn('Europe/Berlin')
    const course = await makeCourse({ title: 'SQL <Basics> & more', videos: Array.from({ length: 5 }, () => ({})) })
    const labs = [await makeLab(course.id), await makeLab(course.id)]
    await assignCourse(SYSTEM, { userId: learner.id, courseId: course.id, dueDate: '2036-06-10' })
    for (const video of course.videos.slice(0, 2)) await recordWatched(learner.id, course.id, video, 100)
    await recordLabAttempt(learner.id, labs[0].exercises[0].id, true)

    // 9 June, 08:00 in Berlin (summer time) is 06:00 UTC
    const rows = await sweepAndSend(learner.id, '2036-06-09T06:00:00Z')
    expect(rows).toMatchObject([{ status: 'sent' }])
    const [mail, ...more] = to(learner.email)
    expect(more).toHaveLength(0)
    expect(mail.subject).toBe('Reminder: SQL <Basics> & more is due tomorrow')
    expect(mail.text).toContain('The course SQL <Basics> & more is due Tue, 10 Jun 2036, end of day (Europe/Berlin).')
    expect(mail.text).toContain('2 of 5 videos completed.')
    expect(mail.text).toContain('1 of 2 labs left.')
    expect(mail.text).toContain(`http://portal.test/course/${course.id}`)
    expect(mail.text).toContain('assigned to you with a due date')
    // learners may not turn reminders off: the mail does not say they can
    expect(mail.text).not.toContain('turn reminder mails off')
    expect(mail.html).toContain('SQL &lt;Basics&gt; &amp; more')
    expect(mail.html).not.toContain('<Basics>')
    expect(mail.html).toContain(`href="http://portal.test/course/${course.id}"`)
  })

  it('tells a learner who has not started so, and an overdue one by how many days', async () => {
    const learner = await learnerIn('UTC')
    const course = await makeCourse({ title: 'Indexes', videos: [{}, {}] })
    await assignCourse(SYSTEM, { userId: learner.id, courseId: course.id, dueDate: '2036-07-10' })
    await saveReminderSettings(SYSTEM, { learnersMayOptOut: true })

    await sweepAndSend(learner.id, '2036-07-13T08:00:00Z')
    const [mail] = to(learner.email)
    expect(mail.subject).toBe('Indexes is overdue by 3 days')
    expect(mail.text).toContain('The course Indexes was due Thu, 10 Jul 2036, end of day (UTC).')
    expect(mail.text).toContain('You have not started yet.')
    expect(mail.text).not.toContain('videos completed')
    expect(mail.text).toContain('You can turn reminder mails off on your profile.')
  })
})

describe('a program reminder', () => {
  it('counts the courses completed, names those left, and links My Courses', async () => {
    const learner = await learnerIn('UTC')
    const courses = [
      await makeCourse({ title: 'Alpha', videos: [{}] }),
      await makeCourse({ title: 'Beta', videos: [{}] }),
      await makeCourse({ title: 'Gamma', videos: [{}] }),
    ]
    const program = await makeProgram(courses.map((c) => c.id))
    await assignProgram(SYSTEM, { userId: learner.id, programId: program.id, dueDate: '2036-08-20' })
    await recordWatched(learner.id, courses[1].id, courses[1].videos[0], 100)

    await sweepAndSend(learner.id, '2036-08-13T08:00:00Z')
    const [mail] = to(learner.email)
    expect(mail.subject).toMatch(/^Reminder: Program \w+ is due 20 Aug$/)
    expect(mail.text).toContain('1 of 3 courses completed.')
    expect(mail.text).toContain('Left: Alpha, Gamma.')
    expect(mail.text).toContain('http://portal.test/courses')
    expect(mail.html).toContain('Open My Courses')
  })
})

describe('a reminder no longer owed when it goes out', () => {
  it('is cancelled, with why, when the learner completed meanwhile', async () => {
    const learner = await learnerIn('UTC')
    const course = await makeCourse({ videos: [{}] })
    await assignCourse(SYSTEM, { userId: learner.id, courseId: course.id, dueDate: '2036-09-10' })
    const rows = await sweepAndSend(learner.id, '2036-09-09T08:00:00Z', () =>
      recordWatched(learner.id, course.id, course.videos[0], 100),
    )
    expect(rows).toEqual([
      expect.objectContaining({ status: 'cancelled', last_error: 'The learner completed the course.' }),
    ])
    expect(to(learner.email)).toHaveLength(0)
  })

  it('is cancelled when the due date moved, the course turned reminders off, or the learner opted out where allowed', async () => {
    const cases = [
      {
        note: 'The due date changed.',
        change: (userId: string, courseId: string) =>
          assignCourse(SYSTEM, { userId, courseId, dueDate: '2036-10-30' }).then(() => undefined),
      },
      {
        note: 'Reminders are off for this course.',
        change: (_userId: string, courseId: string) =>
          select('UPDATE courses SET reminders = false WHERE id = $1 RETURNING id', [courseId]).then(() => undefined),
      },
      {
        note: 'The learner turned reminder mails off.',
        change: async (userId: string) => {
          await saveReminderSettings(SYSTEM, { learnersMayOptOut: true })
          await select('UPDATE users SET reminder_mails = false WHERE id = $1 RETURNING id', [userId])
        },
      },
      {
        note: 'The course is no longer assigned.',
        change: (userId: string, courseId: string) =>
          select('DELETE FROM course_assignments WHERE user_id = $1 AND course_id = $2 RETURNING user_id', [
            userId,
            courseId,
          ]).then(() => undefined),
      },
    ]
    for (const { note, change } of cases) {
      const learner = await learnerIn('UTC')
      const course = await makeCourse({ videos: [{}] })
      await assignCourse(SYSTEM, { userId: learner.id, courseId: course.id, dueDate: '2036-10-10' })
      const rows = await sweepAndSend(learner.id, '2036-10-09T08:00:00Z', () => change(learner.id, course.id))
      expect(rows, note).toEqual([expect.objectContaining({ status: 'cancelled', last_error: note })])
      expect(to(learner.email), note).toHaveLength(0)
      await saveReminderSettings(SYSTEM, {})
    }
  })
})
