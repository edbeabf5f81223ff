import { mkdtemp, rm, stat } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { db } from '#db/client.ts'
import type { Actor } from '../auth/roles.ts'
import { forbidden, invalid, isServiceError, notFound, ServiceError } from '../errors.ts'
import { writeFileAtomically } from '../files/destinations.server.ts'
import { removeStoredFile, storeFile } from '../files/service.server.ts'
import { storage } from '../files/storage.server.ts'
import { FILE_FIELD, ImportConfirmSchema, ImportUploadSchema, type ImportChoices } from './import-schema.ts'
import {
  importUsers,
  requireImporter,
  type ImportError,
  type ImportOptions,
  type ImportResult,
  type PlannedRowValues,
} from './import.server.ts'

// The user import as the Import users page runs it, on a CSV file uploaded and stored first: a dry run
// of the stored file (which also lists the first rows it would create and update), then (once the admin
// confirms) the import itself, whose failing rows are kept as an error CSV to download. Both files are
// stored without being attached to anything, so whichever is left behind (an import never confirmed, an
// error file never fetched) goes with the sweep of unattached files. The uploaded file may hold
// passwords: it is never served back.

/** The web's import steps: an importer with an account of their own, who owns the uploaded file. */
export function requireUploader(actor: Actor) {
  requireImporter(actor)
  if (!actor.id) throw forbidden('Only admins can import users.')
}

/** A problem with one row as the page shows it: without the row's values. */
type ImportProblem = Pick<ImportError, 'row' | 'field' | 'message'>

/** rows shown of each kind: the counts tell how many more there are */
const PLAN_SHOWN = 50

/** A row the import would write, as the dry run's table shows it (no password). */
export type PlannedRow = { row: number } & PlannedRowValues

/** The first rows the import would create, and the first it would change (PLAN_SHOWN of each at most). */
type ImportPlan = { create: PlannedRow[]; update: PlannedRow[] }

export type ImportPreview = {
  key: string
  name: string
  choices: ImportChoices
  counts: ImportResult['counts']
  plan: ImportPlan
  problems: ImportProblem[]
  /** failing rows beyond those the problems listed name */
  moreFailedRows: number
}

type ImportOutcome = {
  counts: ImportResult['counts']
  /** the error CSV's key when rows failed */
  errorsKey: string | null
  /** why the file was read no further, when it broke off */
  stopped: string | null
}

const optionsOf = (choices: ImportChoices): ImportOptions => ({
  onExisting: choices.onExisting,
  delimiter: choices.delimiter === 'auto' ? undefined : choices.delimiter,
})

const problemsOf = (result: ImportResult) => {
  const problems = result.errors.map(({ row, field, message }) => ({ row, field, message }))
  const listed = new Set(problems.map((p) => p.row)).size
  return { problems, moreFailedRows: Math.max(0, result.counts.failed - listed) }
}

/** The stored upload's row behind `key`, when this admin uploaded it for an import. */
async function uploadRowOf(actor: Actor, key: string) {
  const { StoredFile } = await db()
  const file = await StoredFile.findByPk(key)
  if (!file || file.purpose !== 'user_import' || file.uploadedBy !== actor.id) {
    const message = 'The uploaded file is gone (imported already, or not yours); upload it again.'
    throw new ServiceError(404, message, { [FILE_FIELD]: message })
  }
  return file
}

/** The stored upload behind `key`, when this admin uploaded it for an import, opened. */
async function uploadOf(actor: Actor, key: string) {
  const file = await uploadRowOf(actor, key)
  const stored = await storage().get(key)
  if (!stored) throw notFound('The uploaded file is gone; upload it again.')
  return { file, body: stored.body }
}

/**
 * Step 2: check the freshly uploaded file with a dry run. A file that cannot be read (no usable
 * header, a quote never closed) is refused beside the file field and removed, so nothing is left.
 */
export async function previewUpload(actor: Actor, input: unknown): Promise<ImportPreview> {
  requireUploader(actor)
  const { file: key, ...rest } = ImportUploadSchema.parse(input)
  const choices: ImportChoices = { key, ...rest }
  // only a file of this admin's import is ever read, or removed
  const { file, body } = await uploadOf(actor, key)
  const plan: ImportPlan = { create: [], update: [] }
  const onRow: ImportOptions['onRow'] = ({ line, outcome, values }) => {
    const rows = outcome === 'created' ? plan.create : plan.update
    if (rows.length < PLAN_SHOWN) rows.push({ row: line, ...values })
  }
  try {
    const result = await importUsers(actor, body, { ...optionsOf(choices), dryRun: true, onRow })
    // a dry run reads the file as one transaction: the message says nothing was imported
    if (result.stopped) throw invalid(result.stopped.message)
    return { key, name: file.name, choices, counts: result.counts, plan, ...problemsOf(result) }
  } catch (error) {
    await removeStoredFile(key)
    if (isServiceError(error) && !error.errors)
      throw new ServiceError(error.status, error.message, { [FILE_FIELD]: error.message })
    throw error
  }
}

/** Step 3 checked before it starts: the confirmed choices, and the upload they name (this admin's). */
export async function checkConfirmed(actor: Actor, input: unknown) {
  requireUploader(actor)
  const choices = ImportConfirmSchema.parse(input)
  await uploadRowOf(actor, choices.key)
  return choices
}

/**
 * Step 3: import the confirmed file for real, queueing invitations when asked. Failing rows go to an
 * error CSV kept as a stored file of this admin's; the uploaded file is removed once the import ran.
 */
export async function confirmImport(
  actor: Actor,
  input: unknown,
  { onProgress }: Pick<ImportOptions, 'onProgress'> = {},
): Promise<ImportOutcome> {
  requireUploader(actor)
  const choices = ImportConfirmSchema.parse(input)
  const { file, body } = await uploadOf(actor, choices.key)
  const onInvite: ImportOptions['onInvite'] = choices.invite ? await invitations() : undefined
  const dir = await mkdtemp(path.join(os.tmpdir(), 'portal-import-errors-'))
  try {
    const errorsFile = path.join(dir, 'errors.csv')
    const result = await writeFileAtomically(errorsFile, (errorSink) =>
      importUsers(actor, body, { ...optionsOf(choices), onInvite, errorSink, onProgress }),
    )
    let errorsKey: string | null = null
    if (result.counts.failed > 0 || result.stopped) {
      const size = (await stat(errorsFile)).size
      const stored = await storeFile({
        purpose: 'import_errors',
        name: `${path.basename(file.name, path.extname(file.name)) || 'import'}-errors.csv`,
        contentType: 'text/csv',
        body: { file: errorsFile, size },
        uploadedBy: actor.id,
      })
      errorsKey = stored.key
    }
    await removeStoredFile(choices.key)
    return { counts: result.counts, errorsKey, stopped: result.stopped?.message ?? null }
  } finally {
    await rm(dir, { recursive: true, force: true })
  }
}

/** Invitation mails go to the mail queue, in the transaction that creates the account. */
async function invitations(): Promise<ImportOptions['onInvite']> {
  const { enqueueInvitation } = await import('../mail/queue.server.ts')
  return async (userId, transaction) => {
    await enqueueInvitation(userId, transaction)
  }
}

/** The error CSV of an import this admin ran, to download. */
export async function openImportErrors(actor: Actor, key: string) {
  requireUploader(actor)
  const { StoredFile } = await db()
  const file = await StoredFile.findByPk(key)
  if (!file || file.purpose !== 'import_errors' || file.uploadedBy !== actor.id)
    throw notFound('This error file is gone; errors are kept for a day after an import.')
  const stored = await storage().get(key)
  if (!stored) throw notFound('This error file is gone; errors are kept for a day after an import.')
  return { body: stored.body, size: stored.size, name: file.name, contentType: 'text/csv; charset=utf-8' }
}
