import type pg from 'pg'
import { runPortal } from '#tests/bench/measure.ts'

// The reminder sweep on the scale bench's database (npm run bench:reminders, and the end of npm run bench:scale):
// one course of every learner and every program assignment get a due date, spread over three weeks around
// today, the learners over seven time zones; then `portal reminders run` sweeps them in a child process of its
// own, as the workers' job does every five minutes, with its time and peak RSS. Floors in the same run: the
// same command's start-up and a sweep of no learner (`reminders list` before any due date), and a plain scan
// of the assignments with due dates. A second sweep shows the cost when everything owed is already recorded.
// Figures only: the goal (a sweep of 100,000 learners in under 30 s, flat memory) is read from them.

const ZONES = [
  'UTC',
  'Europe/Berlin',
  'America/New_York',
  'Asia/Tokyo',
  'Pacific/Kiritimati',
  'Etc/GMT+12',
  'Australia/Sydney',
]

type Run = { seconds: number; peakKb: number; cpuMs: number }

export async function measureReminders(client: pg.Client) {
  const q = <R extends pg.QueryResultRow>(text: string, values: unknown[] = []) => client.query<R>(text, values)
  console.log('\nreminders: due dates on one course of every learner and on every program assignment')
  await q(`UPDATE users SET time_zone = ($1::text[])[1 + abs(hashtext(id::text)) % $2] WHERE role_id = 2`, [
    ZONES,
    ZONES.length,
  ])
  // days from −10 to +10 around today: a share of the learners owe a step of the plan today, the others none
  await q(
    `UPDATE course_assignments a SET due_date = current_date + (abs(hashtext(a.user_id::text)) % 21 - 10)
       FROM (SELECT DISTINCT ON (user_id) user_id, course_id FROM course_assignments ORDER BY user_id, course_id) f
      WHERE a.user_id = f.user_id AND a.course_id = f.course_id`,
  )
  await q(
    `UPDATE program_assignments SET due_date = current_date + (abs(hashtext(user_id::text || program_id::text)) % 21 - 10)`,
  )
  await q('ANALYZE users, course_assignments, program_assignments')
  const {
    rows: [counts],
  } = await q<{ learners: number; courses: number; programs: number }>(
    `SELECT (SELECT count(DISTINCT user_id) FROM course_assignments WHERE due_date IS NOT NULL)::int AS learners,
            (SELECT count(*) FROM course_assignments WHERE due_date IS NOT NULL)::int AS courses,
            (SELECT count(*) FROM program_assignments WHERE due_date IS NOT NULL)::int AS programs`,
  )
  console.log(
    `  ${counts.learners.toLocaleString('en-US')} learners with due dates: ${counts.courses.toLocaleString('en-US')} course ` +
      `and ${counts.programs.toLocaleString('en-US')} program assignments`,
  )

  const scanStarted = performance.now()
  await q(
    `SELECT count(*) FROM course_assignments a JOIN users u ON u.id = a.user_id
      WHERE a.due_date IS NOT NULL AND assignment_due_at(a.due_date, a.due_at, COALESCE(u.time_zone, 'UTC')) > now()`,
  )
  const scanSeconds = (performance.now() - scanStarted) / 1000

  const floor = await runPortal(['reminders', 'list', '--due-before', '2000-01-01T00:00:00Z', '--json'])
  const first = await runPortal(['reminders', 'run', '--json'])
  const again = await runPortal(['reminders', 'run', '--json'])
  const read = (run: { stdout: string }) => JSON.parse(run.stdout) as { considered: number; queued: number }
  const swept = read(first)
  const sweptAgain = read(again)
  const {
    rows: [queue],
  } = await q<{ mails: number; reminders: number }>(
    `SELECT (SELECT count(*) FROM mail_queue WHERE kind = 'reminder')::int AS mails,
            (SELECT count(*) FROM assignment_reminders)::int AS reminders`,
  )

  const row = (name: string, run: Run, note = '') =>
    console.log(
      `  ${name.padEnd(44)} ${run.seconds.toFixed(1).padStart(6)} s  peak RSS ${(run.peakKb / 1024).toFixed(0).padStart(4)} MB` +
        `  (${(run.peakKb / floor.peakKb).toFixed(2)}× the floor's)  CPU ${(run.cpuMs / 1000).toFixed(1)} s${note}`,
    )
  console.log(`  floor: a scan of the due assignments with their due instant  ${scanSeconds.toFixed(2)} s`)
  row('floor: portal reminders list (start-up, no row)', floor)
  row(
    'portal reminders run (the sweep)',
    first,
    `; ${swept.considered.toLocaleString('en-US')} assignments considered, ${swept.queued.toLocaleString('en-US')} reminders queued`,
  )
  row('portal reminders run again (all recorded)', again, `; ${sweptAgain.queued} queued`)
  console.log(
    `  queued: ${queue.mails.toLocaleString('en-US')} reminder mails for ${queue.reminders.toLocaleString('en-US')} reminders ` +
      `(sent by the workers within MAIL_RATE_PER_MINUTE, not here)`,
  )
}
