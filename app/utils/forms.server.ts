import type { SubmissionResult } from '@conform-to/react'
import { json } from '@remix-run/node'
import { isServiceError, type ServiceError } from '#app/modules/errors.ts'
import { removeStoredFile, type FileInfo } from '#app/modules/files/service.server.ts'

// Page actions: a service's refusal becomes the form's errors (beside their fields when the service
// names them, above the form otherwise) with what was typed kept, never a thrown error page.

export type FormReply = { result: SubmissionResult<string[]> }

/** A conform submission, whatever its schema. */
type Replyable = {
  reply: (options?: {
    formErrors?: string[]
    fieldErrors?: Record<string, string[]>
    hideFields?: string[]
  }) => SubmissionResult<string[]>
}

/** A conform reply carrying a service's refusal. */
export function refusal(submission: Replyable, error: ServiceError) {
  const fieldErrors = Object.fromEntries(Object.entries(error.errors ?? {}).map(([field, text]) => [field, [text]]))
  return json<FormReply>(
    { result: submission.reply({ fieldErrors, formErrors: error.errors ? [] : [error.message] }) },
    { status: error.status },
  )
}

/** Run a service for a validated form: its refusals come back as form errors. */
export async function submitToService<T>(
  submission: Replyable,
  run: () => Promise<T>,
  onRefused?: () => Promise<void>,
): Promise<{ ok: true; value: T } | { ok: false; response: Response }> {
  try {
    return { ok: true, value: await run() }
  } catch (error) {
    await onRefused?.()
    if (isServiceError(error)) return { ok: false, response: refusal(submission, error) }
    throw error
  }
}

/** FormData from text fields, with some values set over them. */
export function formDataOf(fields: Record<string, string>, overrides: Record<string, string | undefined> = {}) {
  const formData = new FormData()
  for (const [name, value] of Object.entries({ ...fields, ...overrides }))
    if (value !== undefined) formData.set(name, value)
  return formData
}

/** The form as posted: a file sent with it (no JavaScript) wins over the `{ key, link, name }` JSON field. */
export function withUploadedFile(fields: Record<string, string>, field: string, file: FileInfo | undefined) {
  return formDataOf(fields, file ? { [field]: JSON.stringify(file) } : {})
}

/** Forget a file this request stored when what it was for was refused. */
export async function discardUpload(file: FileInfo | undefined) {
  if (file) await removeStoredFile(file.key)
}

/** A submission that failed validation, as a 400 reply. */
export function invalidForm(submission: Replyable, options?: { hideFields?: string[] }) {
  return json<FormReply>({ result: submission.reply(options) }, { status: 400 })
}

/** The posted form, or an empty one when the body is not a form at all (its validation then says what is missing). */
export async function readForm(request: Request): Promise<FormData> {
  try {
    return await request.formData()
  } catch {
    return new FormData()
  }
}
