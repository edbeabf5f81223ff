import { describe, expect, it } from 'vitest'
import { assignCourse, assignProgram } from '#app/modules/assignments/service.server.ts'
import { SYSTEM } from '#app/modules/auth/roles.ts'
import type { DueAssignment, SweepResult } from '#app/modules/deadlines/sweep.server.ts'
import { select } from '#db/client.ts'
import { portal } from '#tests/cli.ts'
import { makeCourse, makeLearner, makeProgram, recordWatched } from '#tests/factories.ts'

// `portal reminders run` and `portal reminders list` through the real CLI, on the test file's database.

const counts = async () =>
  (
    await select<{ reminders: number; mails: number }>(
      `SELECT (SELECT count(*) FROM assignment_reminders)::int AS reminders,
              (SELECT count(*) FROM mail_queue WHERE kind = 'reminder')::int AS mails`,
      [],
    )
  )[0]

describe('portal reminders', () => {
  it('run: a dry run writes nothing, a run queues once, a second run queues nothing new; list shows the steps', async () => {
    const learner = await makeLearner()
    const done = await makeLearner()
    const course = await makeCourse({ title: 'SQL Basics', videos: [{}] })
    const program = await makeProgram([course.id])
    await assignCourse(SYSTEM, { userId: learner.id, courseId: course.id, dueDate: '2037-03-15' })
    await assignCourse(SYSTEM, { userId: done.id, courseId: course.id, dueDate: '2037-03-15' })
    await recordWatched(done.id, course.id, course.videos[0], 100)
    await assignProgram(SYSTEM, { userId: learner.id, programId: program.id, dueDate: '2037-03-15T17:00:00Z' })

    const now = '2037-03-14T08:30:00Z'
    const dry = await portal(['reminders', 'run', '--now', now, '--dry-run', '--json'])
    expect(dry.code).toBe(0)
    const planned = JSON.parse(dry.stdout) as SweepResult
    expect(planned).toMatchObject({ dryRun: true, considered: 2, queued: 2, now: '2037-03-14T08:30:00.000Z' })
    expect(planned.reminders.map((r) => [r.email, r.kind, r.title, r.step]).sort()).toEqual(
      [
        [learner.email, 'course', 'SQL Basics', 'before-1'],
        [learner.email, 'program', expect.stringMatching(/^Program /), 'before-1'],
      ].sort(),
    )
    expect(await counts()).toEqual({ reminders: 0, mails: 0 })

    const real = await portal(['reminders', 'run', '--now', now])
    expect(real.code).toBe(0)
    expect(real.stdout.split('\n')[0]).toMatch(/^LEARNER\s+KIND\s+TITLE\s+DUE\s+STEP\s+OWED SINCE$/)
    expect(real.stdout).toMatch(
      new RegExp(
        `^${learner.email}\\s+course\\s+SQL Basics\\s+2037-03-15\\s+before-1\\s+2037-03-14T08:00:00.000Z$`,
        'm',
      ),
    )
    expect(real.stderr).toContain(
      'Queued 2 reminders (2 assignments with a due date considered at 2037-03-14T08:30:00.000Z).',
    )
    expect(await counts()).toEqual({ reminders: 2, mails: 2 })

    const again = await portal(['reminders', 'run', '--now', '2037-03-14T09:00:00Z', '--json'])
    expect(again.code).toBe(0)
    expect(JSON.parse(again.stdout)).toMatchObject({ queued: 0, reminders: [] })
    expect(await counts()).toEqual({ reminders: 2, mails: 2 })

    const listed = await portal(['reminders', 'list', '--due-before', '2037-03-16T01:00:00Z', '--json'])
    expect(listed.code).toBe(0)
    const due = (JSON.parse(listed.stdout) as DueAssignment[]).filter((a) => [learner.id, done.id].includes(a.userId))
    // the completed learner is not listed; the program falls due first (17:00), the course at the day's end
    expect(due.map((a) => [a.kind, a.due, a.dueAt, a.lastReminder])).toEqual([
      ['program', '2037-03-15T17:00:00Z', '2037-03-15T17:00:00.000Z', 'before-1'],
      ['course', '2037-03-15', '2037-03-16T00:00:00.000Z', 'before-1'],
    ])
    expect(due.every((a) => a.email === learner.email && a.status === 'not-started')).toBe(true)
    const earlier = await portal(['reminders', 'list', '--due-before', '2037-03-15T17:00:00Z', '--json'])
    expect((JSON.parse(earlier.stdout) as DueAssignment[]).some((a) => a.userId === learner.id)).toBe(false)
  })

  it('refuses a moment that is not one, with exit code 2 and the option named', async () => {
    for (const args of [
      ['reminders', 'run', '--now', 'tomorrow'],
      ['reminders', 'run', '--now', '2037-13-45T08:00:00Z', '--dry-run'],
      ['reminders', 'list', '--due-before', '15/03/2037'],
    ]) {
      const run = await portal(args)
      expect(run.code, args.join(' ')).toBe(2)
      expect(run.stdout).toBe('')
      expect(run.stderr).toMatch(
        /^portal: --(now|due-before): The moment must be an instant such as 2026-12-15T08:00:00Z/,
      )
    }
  })
})
