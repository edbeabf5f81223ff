import { parseWithZod } from '@conform-to/zod'
import { json } from '@remix-run/node'
import { z } from 'zod'
import type { Actor } from '#app/modules/auth/roles.ts'
import { checkSessions, closeSessions, runSession, startSessions } from '#app/modules/labs/session-exercises.server.ts'
import { invalidForm, submitToService, type FormReply } from '#app/utils/forms.server.ts'

// The lab page's forms for a two-session exercise, told apart from an attempt's by their intent: Start (and Start
// over), Run in session A or B, Check, and Close (also what the page's beacon sends when the learner leaves).

const INTENTS = ['sessions-start', 'sessions-run', 'sessions-check', 'sessions-close'] as const

const SessionsFormSchema = z.object({
  intent: z.enum(INTENTS),
  exercise: z.string({ required_error: 'exercise is required.' }),
  session: z.enum(['A', 'B']).optional(),
  sql: z.string().optional(),
  /** the pair a Close (or the page's beacon) is for */
  pair: z.string().optional(),
})

/** Whether a posted form is one of a two-session exercise's. */
export const isSessionsForm = (formData: FormData) => String(formData.get('intent') ?? '').startsWith('sessions-')

/** What Check answered, beside the form's state. */
export type SessionsReply = FormReply & { check?: Awaited<ReturnType<typeof checkSessions>> }

/** Runs a two-session exercise's form; a refused statement (400, or 409 while its session is busy) shows at its SQL. */
export async function sessionsAction(user: Actor, labId: string, formData: FormData) {
  const submission = parseWithZod(formData, { schema: SessionsFormSchema })
  if (submission.status !== 'success') return invalidForm(submission)
  const { intent, exercise, session, sql, pair } = submission.value
  const run = async () => {
    if (intent === 'sessions-start') await startSessions(user, labId, exercise)
    else if (intent === 'sessions-run') await runSession(user, labId, { exercise, session, sql })
    else if (intent === 'sessions-close') await closeSessions(user, pair)
    else return checkSessions(user, labId, exercise)
  }
  const done = await submitToService(submission, run, {
    fieldFor: intent === 'sessions-run' ? { 400: 'sql', 409: 'sql' } : {},
  })
  if (!done.ok) return done.response
  return json<SessionsReply>({ result: submission.reply(), ...(done.value ? { check: done.value } : {}) })
}
