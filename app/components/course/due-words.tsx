import { describeDue, describeDueFully, daysUntilDue, type DueView } from '#app/modules/deadlines/due.ts'

/**
 * A course's due date in words ("Due 15 Dec", "Due tomorrow", "Overdue by 3 days") or "Completed", the full
 * date and its time zone in a `<time>`'s title and for screen readers. `now` is the server's moment, so the
 * page and its hydration read the same words.
 */
export function DueWords({
  due,
  completed,
  program,
  now,
}: {
  due: DueView | null
  completed: boolean
  /** the program the due date comes from, when not the course's own assignment */
  program?: string | null
  now: string
}) {
  if (completed)
    return (
      <p className="text-sm font-medium text-emerald-700" data-testid="due">
        <span aria-hidden>✓ </span>Completed
      </p>
    )
  if (!due) return null
  const at = new Date(now)
  const overdue = at.getTime() >= new Date(due.dueAt).getTime()
  const soon = !overdue && daysUntilDue(due, at) <= 1
  const full = describeDueFully(due)
  return (
    <p
      className={`text-sm font-medium ${overdue ? 'text-red-700' : soon ? 'text-amber-800' : 'text-slate-700'}`}
      data-testid="due"
    >
      <time dateTime={due.dueDate ?? due.dueAt} title={full}>
        {describeDue(due, at)}
        <span className="sr-only"> ({full})</span>
      </time>
      {program ? <span className="font-normal text-slate-600"> · {program} program</span> : null}
    </p>
  )
}
