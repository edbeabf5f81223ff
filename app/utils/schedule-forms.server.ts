import { parseWithZod } from '@conform-to/zod'
import type { output, ZodTypeAny } from 'zod'
import type { Actor } from '#app/modules/auth/roles.ts'
import { invalidForm, submitToService } from './forms.server.ts'
import { redirectWithSuccess } from './toast.server.ts'

// The action of a page of schedules (Backups, Scheduled exports): Add (the form, its refusals beside its
// fields), Remove (after the confirmation) and Run now; each done goes back to the page with a toast.

/** The schedules of a job, as scheduledJob (app/modules/jobs/schedules.server.ts) offers them. */
type JobSchedules<Schema extends ZodTypeAny> = {
  schema: Schema
  add: (actor: Actor, input: output<Schema>) => Promise<{ name: string }>
  remove: (actor: Actor, name: string) => Promise<{ name: string }>
  runNow: (actor: Actor, name: string) => Promise<{ scheduleName: string }>
}

/** `kept`: what stays of a removed schedule, as its toast says. */
export async function scheduleFormAction<Schema extends ZodTypeAny>(
  formData: FormData,
  actor: Actor,
  schedules: JobSchedules<Schema>,
  { page, kept }: { page: string; kept: string },
) {
  const intent = formData.get('intent')
  const name = String(formData.get('name') ?? '')
  if (intent === 'remove') {
    const removed = await schedules.remove(actor, name)
    return redirectWithSuccess(page, `Schedule ${removed.name} removed; ${kept}.`)
  }
  if (intent === 'run') {
    const queued = await schedules.runNow(actor, name)
    return redirectWithSuccess(page, `${queued.scheduleName} is queued to run now; its run is listed below.`)
  }
  const submission = parseWithZod(formData, { schema: schedules.schema })
  if (submission.status !== 'success') return invalidForm(submission)
  const added = await submitToService(submission, () => schedules.add(actor, submission.value))
  if (!added.ok) return added.response
  return redirectWithSuccess(page, `Schedule ${added.value.name} added.`)
}
