import { parseWithZod } from '@conform-to/zod'
import type { output, ZodTypeAny } from 'zod'
import { invalidForm, submitToService } from './forms.server.ts'
import { redirectWithSuccess } from './toast.server.ts'

// The action of a page of schedules (Backups, Scheduled exports): Add (the form, its refusals beside its
// fields), Remove (after the confirmation) and Run now; each done goes back to the page with a toast.

export async function scheduleFormAction<Schema extends ZodTypeAny>(
  formData: FormData,
  {
    page,
    schema,
    add,
    remove,
    run,
    kept,
  }: {
    page: string
    schema: Schema
    add: (schedule: output<Schema>) => Promise<{ name: string }>
    remove: (name: string) => Promise<{ name: string }>
    run: (name: string) => Promise<{ scheduleName: string }>
    /** what stays of a removed schedule, as its toast says */
    kept: string
  },
) {
  const intent = formData.get('intent')
  const name = String(formData.get('name') ?? '')
  if (intent === 'remove') {
    const removed = await remove(name)
    return redirectWithSuccess(page, `Schedule ${removed.name} removed; ${kept}.`)
  }
  if (intent === 'run') {
    const queued = await run(name)
    return redirectWithSuccess(page, `${queued.scheduleName} is queued to run now; its run is listed below.`)
  }
  const submission = parseWithZod(formData, { schema })
  if (submission.status !== 'success') return invalidForm(submission)
  const added = await submitToService(submission, () => add(submission.value))
  if (!added.ok) return added.response
  return redirectWithSuccess(page, `Schedule ${added.value.name} added.`)
}
