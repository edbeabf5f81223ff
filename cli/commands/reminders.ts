import type { Command } from 'commander'
import { SYSTEM } from '#app/modules/auth/roles.ts'
import { listDueAssignments, sweepReminders } from '#app/modules/deadlines/sweep.server.ts'
import { withDatabase } from '../database.ts'
import { plural, textTable as table, usageOf } from '../output.ts'
import { progressLine } from '../progress.ts'

// `portal reminders …`: the reminders of due dates. `run` sweeps once in this process, as the workers'
// `reminder-sweep` job does every 5 minutes (each reminder is queued once, however often it runs); `list`
// shows the assignments not completed that fall due before a moment. Data (tables, JSON) goes to stdout,
// what happened to stderr; wrong input (a moment that is not one) exits 2.

const FLAG_OF: Record<string, string> = {
  now: '--now',
  dryRun: '--dry-run',
  dueBefore: '--due-before',
  limit: '--limit',
}
const flagOf = (field: string) => FLAG_OF[field] ?? 'input'

export function registerReminders(program: Command) {
  const reminders = program
    .command('reminders')
    .description('reminder mails of due dates: sweep once, list what is due')

  reminders
    .command('run')
    .description(
      'queue the reminders owed now (or at --now), each once: a reminder already queued for its due date is never queued again',
    )
    .option('--now <instant>', 'sweep as if it were this moment, such as 2026-12-15T08:00:00Z')
    .option('--dry-run', 'list the reminders a run would queue; queue none')
    .option('--json', 'print the result as JSON')
    .action(async (options: { now?: string; dryRun?: boolean; json?: boolean }) => {
      const progress = progressLine('Swept', 'learners')
      const result = await withDatabase(() =>
        sweepReminders(
          SYSTEM,
          { now: options.now, dryRun: Boolean(options.dryRun) },
          { onProgress: (learners) => progress.update(learners) },
        ).catch((error) => usageOf(error, flagOf)),
      ).finally(() => progress.stop())
      if (options.json) console.log(JSON.stringify(result, null, 2))
      else if (result.reminders.length)
        console.log(
          table([
            ['LEARNER', 'KIND', 'TITLE', 'DUE', 'STEP', 'OWED SINCE'],
            ...result.reminders.map((r) => [r.email, r.kind, r.title, r.due, r.step, r.at]),
          ]),
        )
      const count = plural(result.queued, 'reminder')
      const considered = `${plural(result.considered, 'assignment')} with a due date considered at ${result.now}`
      console.error(
        result.dryRun
          ? `Dry run, nothing queued: ${count} to queue (${considered}).`
          : `Queued ${count} (${considered}).`,
      )
    })

  reminders
    .command('list')
    .description('the assignments not completed that fall due before a moment, the nearest first')
    .requiredOption('--due-before <instant>', 'the moment, such as 2026-12-15T00:00:00Z')
    .option('--limit <n>', 'how many assignments to list (1 to 1000)', '1000')
    .option('--json', 'print the assignments as JSON')
    .action(async (options: { dueBefore: string; limit: string; json?: boolean }) => {
      const found = await withDatabase(() =>
        listDueAssignments(SYSTEM, { dueBefore: options.dueBefore, limit: options.limit }).catch((error) =>
          usageOf(error, flagOf),
        ),
      )
      if (options.json) return console.log(JSON.stringify(found, null, 2))
      if (!found.length) return console.error('No assignment due before then.')
      console.log(
        table([
          ['LEARNER', 'KIND', 'TITLE', 'DUE', 'DUE AT', 'STATUS', 'LAST REMINDER'],
          ...found.map((a) => [a.email, a.kind, a.title, a.due, a.dueAt, a.status, a.lastReminder ?? '']),
        ]),
      )
    })
}
