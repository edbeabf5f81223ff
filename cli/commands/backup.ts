import os from 'node:os'
import { Option, type Command } from 'commander'
import { SYSTEM } from '#app/modules/auth/roles.ts'
import { takeBackup, type BackupProgress } from '#app/modules/backups/backup.server.ts'
import { openArchive } from '#app/modules/backups/source.server.ts'
import { verifyArchive } from '#app/modules/backups/verify.server.ts'
import { errorLine } from '#app/utils/redact.server.ts'
import { disconnect } from '#db/client.ts'
import { MIGRATION_NAMES } from '#db/migrate.ts'
import { UsageError, plural } from '../output.ts'
import { progressStatus } from '../progress.ts'

type BackupOptions = {
  to?: string
  compression: 'zstd' | 'gzip'
  includeSecrets?: boolean
  json?: boolean
  scheduledRun?: string
}

const SECRETS_WARNING =
  'This archive will hold the portal’s signing secrets and its S3 and SMTP credentials: whoever has the file can ' +
  'sign in as anyone. Keep it as you keep those secrets.'

export function registerBackup(program: Command) {
  const backup = program
    .command('backup')
    .description('one archive of the database and every stored file; `backup verify` checks one')
    // its own options come before `verify`: after it, --json is verify's (see cli/program.ts)
    .enablePositionalOptions()
    .option(
      '--to <target>',
      'a file, a folder, s3://bucket/prefix/, s3://bucket/key or - for standard output',
      undefined,
    )
    .addOption(
      new Option('--compression <kind>', 'zstd (smaller, faster) or gzip').choices(['zstd', 'gzip']).default('zstd'),
    )
    .option('--include-secrets', 'put the signing secrets and the S3/SMTP credentials in the archive too')
    .option('--json', 'print what was written as JSON (not with --to -)')
    // a scheduled backup's worker runs this command for a run: the archive's header names it
    .addOption(new Option('--scheduled-run <id>', 'the scheduled backup run this archive is for').hideHelp())
    .addHelpText(
      'after',
      '\nWithout --to the archive goes to $DATA_DIR/backups/. It is written beside its final name and renamed when\n' +
        'complete (an S3 upload is aborted on failure), so an archive that looks whole is whole.',
    )
    .action(async (options: BackupOptions) => {
      if (options.json && options.to === '-')
        throw new UsageError('--json prints a summary on standard output; give --to a file, a folder or s3:// address.')
      if (options.includeSecrets) console.error(SECRETS_WARNING)
      // the portal serving learners beside it comes first
      os.setPriority(10)
      const controller = new AbortController()
      const stop = () => controller.abort(new Error('Backup interrupted; no archive was left.'))
      process.once('SIGINT', stop)
      process.once('SIGTERM', stop)
      const status = progressStatus(
        'Backup {bar} {percentage}% | {stage} | tables {tables} | {rows} rows | {read} read | files {files} | {written} written',
      )
      try {
        const result = await takeBackup(SYSTEM, {
          to: options.to,
          compression: options.compression,
          includeSecrets: options.includeSecrets,
          ...(options.scheduledRun ? { trigger: 'schedule' as const, runId: options.scheduledRun } : {}),
          signal: controller.signal,
          onProgress: (progress) => status.update(...progressFields(progress)),
        })
        status.stop()
        if (options.json) console.log(JSON.stringify(result))
        else {
          if (result.missingFiles.length)
            console.error(
              `${plural(result.missingFiles.length, 'file')} were removed while the backup ran; their rows are kept without bodies.`,
            )
          console.error(
            `Backed up ${plural(result.tables, 'table')} (${plural(result.rows, 'row')}) and ${plural(result.files, 'file')} ` +
              `to ${result.location} (${megabytes(result.bytes)}).`,
          )
        }
      } catch (error) {
        status.stop()
        throw new Error(errorLine(controller.signal.aborted ? controller.signal.reason : error))
      } finally {
        process.off('SIGINT', stop)
        process.off('SIGTERM', stop)
        await disconnect()
      }
    })

  backup
    .command('verify')
    .description('read a whole archive and check every checksum and its manifest, without a database')
    .argument('<archive>', 'a file, s3://bucket/key or - for standard input')
    .option('--json', 'print { ok, archive, header, summary, problems, restorable } as JSON')
    .action(async (archive: string, options: { json?: boolean }) => {
      const report = await verifyArchive(await openArchive(archive), { knownMigrations: MIGRATION_NAMES })
      const { ok, header, summary, problems, restorable } = report
      if (options.json) console.log(JSON.stringify({ ok, archive, header, summary, problems, restorable }))
      else if (ok)
        console.log(
          `OK: ${plural(summary.tables, 'table')}, ${plural(summary.rows, 'row')}, ${plural(summary.files, 'file')} ` +
            `(${megabytes(summary.fileBytes)}) — ${restorable ? 'this portal can restore it' : 'made by a newer portal: upgrade before restoring it'}.`,
        )
      else for (const problem of problems) console.error(`portal: ${problem.message}`)
      if (!ok) process.exitCode = 1
    })
}

const megabytes = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`

/** The progress line's value, total and fields: rows while tables are copied, then files. */
function progressFields(p: BackupProgress): [number, number, Record<string, string | number>] {
  return [
    p.rows.done + p.files.done,
    Math.max(p.rows.estimated, p.rows.done) + p.files.total,
    {
      stage: p.stage,
      tables: `${p.tables.done}/${p.tables.total}`,
      rows: p.rows.done,
      read: megabytes(p.bytes),
      files: `${p.files.done}/${p.files.total}`,
      written: megabytes(p.written),
    },
  ]
}
