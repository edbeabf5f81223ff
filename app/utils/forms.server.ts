import type { SubmissionResult } from '@conform-to/react'
import { json, type ActionFunctionArgs, type TypedResponse } from '@remix-run/node'
import type { Actor } from '#app/modules/auth/roles.ts'
import { invalid } from '#app/modules/errors.ts'
import { removeStoredFile, type FileInfo } from '#app/modules/files/service.server.ts'
import type { UploadKind } from '#app/modules/files/types.server.ts'
import { receiveForm, UploadRefused } from '#app/modules/files/upload.server.ts'
import { runPage, type ErrorClass, type PageOptions } from './pages.server.ts'
import { asServiceError, refusalHeaders } from './refusals.server.ts'
import { NUL_MESSAGE, nulFormErrors } from './text-input.server.ts'
import { jsonWithError } from './toast.server.ts'

// Page actions: a service's refusal becomes the form's errors (beside their fields when the service
// names them, above the form otherwise) with what was typed kept, a toast on the page it redirects
// to, or the error page with the refusal's status; these helpers and pageAction are where that is
// done, and routes only throw.

/**
 * A page's action, as `export const action = (args: ActionFunctionArgs) => pageAction(args, async (…) => …)`:
 * a refusal its forms do not show (through submitToService, submitUploadForm or replyOnRefusal) is
 * the error page with its status, or a redirect with a toast where `redirects` says.
 */
export function pageAction<A extends ActionFunctionArgs, T>(
  args: A,
  act: (args: A) => T | Promise<T>,
  options: PageOptions<A> = {},
): Promise<T> {
  return runPage(args, act, options)
}

export type FormReply = { result: SubmissionResult<string[]> }

/** A refusal as a page's own reply shows it. */
export type Refusal = {
  status: number
  message: string
  errors?: Record<string, string>
  /** what was typed, when a multipart form was refused part-way */
  fields: Record<string, string>
  /** what the answer carries besides its status (Retry-After of a 429) */
  headers?: Record<string, string>
}

type Attempt<T> = { ok: true; value: T } | { ok: false; refusal: Refusal }

/**
 * Run a service; its refusal (a ServiceError or a schema's) is returned, anything else thrown, and so is a
 * refusal of a class in `passOn`, for the page's `redirects` to answer.
 */
async function attempt<T>(
  run: () => Promise<T>,
  onRefused?: () => Promise<void>,
  passOn: readonly ErrorClass[] = [],
): Promise<Attempt<T>> {
  try {
    return { ok: true, value: await run() }
  } catch (thrown) {
    // a file stored for the form is dropped whatever the failure
    await onRefused?.()
    const error = asServiceError(thrown)
    if (!error || passOn.some((refusal) => error instanceof refusal)) throw thrown
    const fields = error instanceof UploadRefused ? error.fields : {}
    const headers = refusalHeaders(error)
    return {
      ok: false,
      refusal: { status: error.status, message: error.message, errors: error.errors, fields, headers },
    }
  }
}

/**
 * Run a service for a page whose reply is its own (not a conform form): a refusal is answered with
 * `reply(refusal)` as JSON with the refusal's status.
 */
export async function replyOnRefusal<T, R>(
  run: () => Promise<T>,
  reply: (refusal: Refusal) => R,
  onRefused?: () => Promise<void>,
): Promise<{ ok: true; value: T } | { ok: false; response: TypedResponse<R> }> {
  const done = await attempt(run, onRefused)
  if (done.ok) return done
  return { ok: false, response: json(reply(done.refusal), { status: done.refusal.status }) }
}

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

/** A conform reply carrying a service's refusal, with its status. */
function conformReply(submission: Replyable, refused: Pick<Refusal, 'status' | 'message' | 'errors'>, hidden: Hidden) {
  const fieldErrors = Object.fromEntries(Object.entries(refused.errors ?? {}).map(([field, text]) => [field, [text]]))
  const formErrors = refused.errors ? [] : [refused.message]
  return { result: submission.reply({ fieldErrors, formErrors, hideFields: hidden.hideFields }) }
}

/**
 * Run a service for a validated form: its refusals come back as form errors (and, with `toast`, as a
 * toast too), but for the classes in `passOn`, which the page answers through its `redirects` (a reset
 * link that cannot be used sends the visitor to ask for a new one). `fieldFor` puts a refusal of a
 * status that names no field beside the one field it is about (a lab's refused SQL, a 400, at `sql`).
 */
export async function submitToService<T>(
  submission: Replyable,
  run: () => Promise<T>,
  options: Hidden & {
    onRefused?: () => Promise<void>
    toast?: boolean
    passOn?: readonly ErrorClass[]
    fieldFor?: Record<number, string>
  } = {},
): Promise<{ ok: true; value: T } | { ok: false; response: Response }> {
  const done = await attempt(run, options.onRefused, options.passOn)
  if (done.ok) return done
  const { status, message, headers } = done.refusal
  const field = done.refusal.errors ? undefined : options.fieldFor?.[status]
  const refusal = field ? { ...done.refusal, errors: { [field]: message } } : done.refusal
  const data: FormReply = conformReply(submission, refusal, options)
  return {
    ok: false,
    response: options.toast ? await jsonWithError(data, message, { status, headers }) : json(data, { status, headers }),
  }
}

/** FormData from text fields, with some values set over them. */
function formDataOf(fields: Record<string, string>, overrides: Record<string, string | undefined> = {}) {
  const formData = new FormData()
  for (const [name, value] of Object.entries({ ...fields, ...overrides }))
    if (value !== undefined) formData.set(name, value)
  return formData
}

/** Forget a file this request stored when what it was for was refused. */
export async function discardUpload(file: FileInfo | undefined) {
  if (file) await removeStoredFile(file.key)
}

/**
 * A submission that failed validation, as a 400 reply: the schema's refusals, or those of the page's own checks
 * of a valid one (`fieldErrors`, each field's messages).
 */
export function invalidForm(submission: Replyable, options?: Hidden & { fieldErrors?: Record<string, string[]> }) {
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
  if (Object.keys(nulFormErrors(form.entries())).length > 0) throw invalid(NUL_MESSAGE)
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
  const received = await attempt(() => receiveForm(request, { kind, fileFields: [fileField], actor }))
  if (!received.ok) {
    // not multipart at all: nothing typed can be read back
    const { status, message, errors, fields } = received.refusal
    const fileError = errors?.[fileField]
    const shown = { status, message, errors: fileError ? { [options.field]: fileError } : errors }
    return { ok: false, response: json<FormReply>(conformReply(options.parse(form(fields)), shown, {}), { status }) }
  }
  const { file, fields } = received.value
  const submission = options.parse(form(file ? { ...fields, [options.field]: JSON.stringify(file) } : fields))
  if (submission.status !== 'success') {
    await discardUpload(file)
    return { ok: false, response: invalidForm(submission) }
  }
  const value = submission.value
  return submitToService(submission, () => options.run(value), { onRefused: () => discardUpload(file) })
}
