import { describe, expect, it } from 'vitest'
import { assignCourse } from '#app/modules/assignments/service.server.ts'
import { SYSTEM } from '#app/modules/auth/roles.ts'
import type { ReminderPlan } from '#app/modules/deadlines/plan.ts'
import { saveReminderSettings } from '#app/modules/deadlines/service.server.ts'
import { runReminderSweep } from '#app/modules/deadlines/sweep.server.ts'
import { select } from '#db/client.ts'
import { makeCourse, makeLearner, recordWatched } from '#tests/factories.ts'
import { jobOf } from '#tests/jobs.ts'

// The reminder sweep on a real database with an injected clock: which step is owed when, in the learner's
// own time zone, and that each is queued once (a row under its key, its mail and the mail's job).

const HOUR = 60 * 60 * 1000

type Recorded = { step: string; due: string; created: Date; mail: string | null; mail_kind: string | null }

/** The reminders recorded for a learner, oldest first, each with its queued mail. */
const remindersOf = (userId: string) =>
  select<Recorded>(
    `SELECT r.step, r.due, r.created_at AS created, q.id AS mail, q.kind AS mail_kind
       FROM assignment_reminders r LEFT JOIN mail_queue q ON q.subject_id = r.id AND q.kind = 'reminder'
      WHERE r.user_id = $1 ORDER BY r.created_at, r.step`,
    [userId],
  )

async function learnerIn(zone: string | null, optOut = false) {
  const learner = await makeLearner()
  await select('UPDATE users SET time_zone = $2, reminder_mails = $3 WHERE id = $1 RETURNING id', [
    learner.id,
    zone,
    !optOut,
  ])
  return learner
}

async function dueCourse(userId: string, dueDate: string, options: { plan?: ReminderPlan; videos?: number } = {}) {
  const course = await makeCourse({ videos: Array.from({ length: options.videos ?? 2 }, () => ({})) })
  await assignCourse(SYSTEM, { userId, courseId: course.id, dueDate, reminderPlan: options.plan })
  return course
}

/** Sweeps from `from` to `to` (ISO) every `stepHours`, noting at which sweep each learner's steps were queued. */
async function walk(from: string, to: string, stepHours: number, at?: (now: Date) => Promise<void>) {
  const queuedAt: Record<string, string[]> = {}
  for (let t = new Date(from).getTime(); t <= new Date(to).getTime(); t += stepHours * HOUR) {
    const now = new Date(t)
    await at?.(now)
    const result = await runReminderSweep({ now })
    for (const r of result.reminders) (queuedAt[r.userId] ??= []).push(`${r.step}@${now.toISOString()}`)
  }
  return queuedAt
}

describe('a plan walked through a month', () => {
  it('queues each reminder once on its day, none after completion, again after a date change, none when off', async () => {
    const plain = await learnerIn(null)
    const finisher = await learnerIn(null)
    const moved = await learnerIn(null)
    const switchedOff = await learnerIn(null)
    const silent = await learnerIn(null)
    const optedOut = await learnerIn(null, true)
    await dueCourse(plain.id, '2031-03-15')
    const finished = await dueCourse(finisher.id, '2031-03-15')
    const movedCourse = await dueCourse(moved.id, '2031-03-15')
    const off = await dueCourse(switchedOff.id, '2031-03-15')
    await select('UPDATE courses SET reminders = false WHERE id = $1 RETURNING id', [off.id])
    await dueCourse(silent.id, '2031-03-15', { plan: { before: [], after: [] } })
    await dueCourse(optedOut.id, '2031-03-15')

    const queued = await walk('2031-03-01T00:00:00Z', '2031-04-02T00:00:00Z', 3, async (now) => {
      // the finisher completes both videos on the 10th; the moved one's date moves on the 14th, at noon
      if (now.toISOString() === '2031-03-10T12:00:00.000Z')
        for (const video of finished.videos) await recordWatched(finisher.id, finished.id, video, 100)
      if (now.toISOString() === '2031-03-14T12:00:00.000Z')
        await assignCourse(SYSTEM, { userId: moved.id, courseId: movedCourse.id, dueDate: '2031-03-25' })
    })

    // the default plan, 08:00 UTC on each day, found by the first sweep after it (09:00)
    const fullPlan = [
      'before-7@2031-03-08T09:00:00.000Z',
      'before-1@2031-03-14T09:00:00.000Z',
      'after-1@2031-03-16T09:00:00.000Z',
      'after-3@2031-03-18T09:00:00.000Z',
      'after-7@2031-03-22T09:00:00.000Z',
    ]
    expect(queued[plain.id]).toEqual(fullPlan)
    expect(queued[finisher.id]).toEqual(['before-7@2031-03-08T09:00:00.000Z'])
    // the old date's steps up to the move, then the new date's whole plan
    expect(queued[moved.id]).toEqual([
      'before-7@2031-03-08T09:00:00.000Z',
      'before-1@2031-03-14T09:00:00.000Z',
      'before-7@2031-03-18T09:00:00.000Z',
      'before-1@2031-03-24T09:00:00.000Z',
      'after-1@2031-03-26T09:00:00.000Z',
      'after-3@2031-03-28T09:00:00.000Z',
      'after-7@2031-04-01T09:00:00.000Z',
    ])
    expect((await remindersOf(moved.id)).map((r) => `${r.due} ${r.step}`)).toEqual([
      '2031-03-15 before-7',
      '2031-03-15 before-1',
      '2031-03-25 before-7',
      '2031-03-25 before-1',
      '2031-03-25 after-1',
      '2031-03-25 after-3',
      '2031-03-25 after-7',
    ])
    expect(queued[switchedOff.id]).toBeUndefined()
    expect(queued[silent.id]).toBeUndefined()
    // learners may not turn reminders off (the default): the learner's choice does not count
    expect(queued[optedOut.id]).toEqual(fullPlan)

    // each recorded reminder has its one mail, and the mail its job
    const rows = await remindersOf(plain.id)
    expect(rows).toHaveLength(5)
    for (const row of rows) {
      expect(row.mail_kind).toBe('reminder')
      expect(await jobOf(row.mail!)).toMatchObject({ name: 'mail', state: 'created' })
    }
    expect(await remindersOf(switchedOff.id)).toEqual([])
    expect(await remindersOf(silent.id)).toEqual([])
  })

  it('honours a learner turning reminders off once the settings allow it', async () => {
    const optedOut = await learnerIn(null, true)
    const other = await learnerIn(null)
    await dueCourse(optedOut.id, '2032-05-10')
    await dueCourse(other.id, '2032-05-10')
    await saveReminderSettings(SYSTEM, { learnersMayOptOut: true })
    try {
      const result = await runReminderSweep({ now: new Date('2032-05-09T08:00:00Z') })
      expect(result.reminders.map((r) => r.userId)).toEqual([other.id])
      expect(await remindersOf(optedOut.id)).toEqual([])
    } finally {
      await saveReminderSettings(SYSTEM, { learnersMayOptOut: false })
    }
  })

  it('sends no stale reminder after a sweep was down, and no earlier step it missed', async () => {
    const learner = await learnerIn(null)
    await dueCourse(learner.id, '2033-01-20')
    // down from before the 13th until the 14th, 09:00: before-7 (13th, 08:00) is more than a day old
    expect((await runReminderSweep({ now: new Date('2033-01-14T09:00:00Z') })).reminders).toEqual([])
    // down again until the 19th, 10:00: before-1 is owed; before-7 never is
    const swept = await runReminderSweep({ now: new Date('2033-01-19T10:00:00Z') })
    expect(swept.reminders.map((r) => r.step)).toEqual(['before-1'])
    expect((await remindersOf(learner.id)).map((r) => r.step)).toEqual(['before-1'])
    // a sweep for an earlier moment of the same day queues nothing more
    expect((await runReminderSweep({ now: new Date('2033-01-19T08:00:00Z') })).queued).toBe(0)
  })

  it('sends a before-step only while it comes before an exact due time', async () => {
    const learner = await learnerIn('UTC')
    const course = await makeCourse({ videos: [{}] })
    // due at 07:00 on the day: a reminder "on the day" (08:00) would come after it
    await assignCourse(SYSTEM, {
      userId: learner.id,
      courseId: course.id,
      dueDate: '2033-02-10T07:00:00Z',
      reminderPlan: { before: [1, 0], after: [1] },
    })
    const at = (iso: string) => runReminderSweep({ now: new Date(iso) }).then((r) => r.reminders.map((x) => x.step))
    expect(await at('2033-02-09T08:00:00Z')).toEqual(['before-1'])
    expect(await at('2033-02-10T08:00:00Z')).toEqual([])
    expect(await at('2033-02-11T08:00:00Z')).toEqual(['after-1'])
    expect((await remindersOf(learner.id)).map((r) => `${r.due} ${r.step}`)).toEqual([
      '2033-02-10T07:00:00Z before-1',
      '2033-02-10T07:00:00Z after-1',
    ])
  })

  it('writes nothing on a dry run, and says what it would queue', async () => {
    const learner = await learnerIn(null)
    await dueCourse(learner.id, '2034-06-10')
    const dry = await runReminderSweep({ now: new Date('2034-06-09T08:30:00Z'), dryRun: true })
    expect(dry).toMatchObject({ dryRun: true, queued: 1, now: '2034-06-09T08:30:00.000Z' })
    expect(dry.reminders).toEqual([
      expect.objectContaining({
        userId: learner.id,
        email: learner.email,
        kind: 'course',
        due: '2034-06-10',
        step: 'before-1',
        at: '2034-06-09T08:00:00.000Z',
      }),
    ])
    expect(await remindersOf(learner.id)).toEqual([])
  })
})

describe('two sweeps at once', () => {
  it('queue one mail per key between them', async () => {
    const learners = await Promise.all(Array.from({ length: 20 }, () => learnerIn(null)))
    for (const learner of learners) await dueCourse(learner.id, '2035-09-10')
    const now = new Date('2035-09-09T08:05:00Z')
    const [a, b] = await Promise.all([runReminderSweep({ now }), runReminderSweep({ now })])
    expect(a.queued + b.queued).toBe(20)
    const mails = await select<{ n: number; keys: number }>(
      `SELECT count(q.id)::int AS n, count(DISTINCT r.id)::int AS keys
         FROM assignment_reminders r JOIN mail_queue q ON q.subject_id = r.id
        WHERE r.user_id = ANY($1::uuid[])`,
      [learners.map((l) => l.id)],
    )
    expect(mails).toEqual([{ n: 20, keys: 20 }])
    // a restart, a re-run
    expect((await runReminderSweep({ now })).queued).toBe(0)
  })
})

describe('time zones', () => {
  it('send the day-before reminder on the local day at UTC+14 and UTC−12, not on the UTC day', async () => {
    const kiritimati = await learnerIn('Pacific/Kiritimati')
    const baker = await learnerIn('Etc/GMT+12')
    const utc = await learnerIn('UTC')
    for (const learner of [kiritimati, baker, utc]) await dueCourse(learner.id, '2036-06-10')
    const owed = async (iso: string) => {
      const { reminders } = await runReminderSweep({ now: new Date(iso) })
      return reminders.filter((r) => [kiritimati.id, baker.id, utc.id].includes(r.userId)).map((r) => r.userId)
    }
    // 9 June, 08:00 at UTC+14 is 8 June, 18:00 UTC
    expect(await owed('2036-06-08T17:59:00Z')).toEqual([])
    expect(await owed('2036-06-08T18:00:00Z')).toEqual([kiritimati.id])
    expect(await owed('2036-06-09T07:59:00Z')).toEqual([])
    expect(await owed('2036-06-09T08:00:00Z')).toEqual([utc.id])
    // 9 June, 08:00 at UTC−12 is 9 June, 20:00 UTC
    expect(await owed('2036-06-09T19:59:00Z')).toEqual([])
    expect(await owed('2036-06-09T20:00:00Z')).toEqual([baker.id])
    for (const learner of [kiritimati, baker, utc])
      expect((await remindersOf(learner.id)).map((r) => r.step)).toEqual(['before-1'])
  })

  it('follow a daylight-saving switch: 08:00 in Berlin is 06:00 UTC before the end of October, 07:00 after', async () => {
    const berlin = await learnerIn('Europe/Berlin')
    await dueCourse(berlin.id, '2031-10-28', { plan: { before: [3, 1], after: [] } })
    const owed = async (iso: string) =>
      (await runReminderSweep({ now: new Date(iso) })).reminders
        .filter((r) => r.userId === berlin.id)
        .map((r) => r.step)
    // Saturday 25 October: summer time (UTC+2)
    expect(await owed('2031-10-25T05:59:00Z')).toEqual([])
    expect(await owed('2031-10-25T06:00:00Z')).toEqual(['before-3'])
    // Monday 27 October: winter time (UTC+1) since Sunday
    expect(await owed('2031-10-27T06:30:00Z')).toEqual([])
    expect(await owed('2031-10-27T07:00:00Z')).toEqual(['before-1'])
  })
})
