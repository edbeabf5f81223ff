import type { SubmissionResult } from '@conform-to/react'
import { json } from '@remix-run/node'
import type { Actor } from '#app/modules/auth/roles.ts'
import { isServiceError, ServiceError } from '#app/modules/errors.ts'
import { removeStoredFile, type FileInfo } from '#app/modules/files/service.server.ts'
import type { UploadKind } from '#app/modules/files/types.server.ts'
import { receiveForm, UploadRefused } from '#app/modules/files/upload.server.ts'
import { NUL_MESSAGE, nulFormErrors } from './text-input.server.ts'

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

/** Fields never sent back to the browser (passwords): without JavaScript they would be rendered as values. */
type Hidden = { hideFields?: string[] }

/** A conform reply carrying a service's refusal. */
export function refusal(submission: Replyable, error: ServiceError, { hideFields }: Hidden = {}) {
  const fieldErrors = Object.fromEntries(Object.entries(error.errors ?? {}).map(([field, text]) => [field, [text]]))
  return json<FormReply>(
    { result: submission.reply({ fieldErrors, formErrors: error.errors ? [] : [error.message], hideFields }) },
    { status: error.status },
  )
}

/** Run a service for a validated form: its refusals come back as form errors. */
export async function submitToService<T>(
  submission: Replyable,
  run: () => Promise<T>,
  options: Hidden & { onRefused?: () => Promise<void> } = {},
): Promise<{ ok: true; value: T } | { ok: false; response: Response }> {
  try {
    return { ok: true, value: await run() }
  } catch (error) {
    await options.onRefused?.()
    if (isServiceError(error)) return { ok: false, response: refusal(submission, error, options) }
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
export function invalidForm(submission: Replyable, options?: Hidden) {
  return json<FormReply>({ result: submission.reply(options) }, { status: 400 })
}

/**
 * The posted form, or an empty one when the body is not a form at all (its validation then says what is
 * missing). Text with a NUL in it is refused here for every form, with a 400 that says so.
 */
export async function readForm(request: Request): Promise<FormData> {
  let form: FormData
  try {
    form = await request.formData()
  } catch {
    return new FormData()
  }
  if (Object.keys(nulFormErrors(form.entries())).length > 0) throw json({ message: NUL_MESSAGE }, { status: 400 })
  return form
}

/** A conform submission as parseWithZod gives it: its value when it succeeded. */
type ParsedForm<V> = Replyable & ({ status: 'success'; value: V } | { status: 'error' | undefined })

/**
 * A page form that carries one file. The file comes with the form (no JavaScript:
 * the multipart field `fileField`) or was uploaded before, its `{ key, link, name }` JSON in
 * `field`. A refused file is shown beside `field` with what was typed kept, and a form its schema
 * or its service refuses leaves no stored file behind.
 */
export async function submitUploadForm<V, T>(
  request: Request,
  options: {
    upload: { kind: UploadKind; fileField: string; actor: Actor }
    /** the form field that carries the file's JSON, where the file's errors are shown */
    field: string
    parse: (formData: FormData) => ParsedForm<V>
    /** values the page decides (the course in the URL, the document type), over what was posted */
    fixed?: Record<string, string>
    /** how the text fields become what the schema reads; plain fields by default */
    toFormData?: (fields: Record<string, string>) => FormData
    run: (value: V) => Promise<T>
  },
): Promise<{ ok: true; value: T } | { ok: false; response: Response }> {
  const { kind, fileField, actor } = options.upload
  const form = (fields: Record<string, string>) => (options.toFormData ?? formDataOf)({ ...fields, ...options.fixed })
  let received
  try {
    received = await receiveForm(request, { kind, fileFields: [fileField], actor })
  } catch (error) {
    if (!isServiceError(error)) throw error
    // not multipart at all: nothing typed can be read back
    const fields = error instanceof UploadRefused ? error.fields : {}
    const message = error.errors?.[fileField]
    const shown = message ? new ServiceError(error.status, error.message, { [options.field]: message }) : error
    return { ok: false, response: refusal(options.parse(form(fields)), shown) }
  }
  const { file, fields } = received
  const submission = options.parse(form(file ? { ...fields, [options.field]: JSON.stringify(file) } : fields))
  if (submission.status !== 'success') {
    await discardUpload(file)
    return { ok: false, response: invalidForm(submission) }
  }
  const value = submission.value
  return submitToService(submission, () => options.run(value), { onRefused: () => discardUpload(file) })
}
