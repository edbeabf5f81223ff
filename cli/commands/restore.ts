import type { Command } from 'commander'
import { SYSTEM } from '#app/modules/auth/roles.ts'
import { restoreArchive, type RestoreProgress } from '#app/modules/backups/restore.server.ts'
import { disconnect } from '#db/client.ts'
import { plural, UsageError } from '../output.ts'
import { progressStatus } from '../progress.ts'

export function registerRestore(program: Command) {
  program
    .command('restore')
    .description('restore the whole portal from an archive of `portal backup`, into an empty database')
    .argument('<archive>', 'a file, s3://bucket/key or - for standard input')
    .option('--force', 'move the data already there aside first (kept and named, never deleted)')
    .option('--jobs <n>', "load the tables' rows over this many connections at once (1 to 8)", '2')
    .option('--json', 'print what was restored as JSON')
    .addHelpText(
      'after',
      '\nThe archive is checked whole before anything is written. The target is DATABASE_URL, or the embedded\n' +
        'database of DATA_DIR; stop the portal first. A restore that stops part-way is finished by running it\n' +
        'again with the same archive; until then the portal refuses to start on that database.',
    )
    .action(async (archive: string, options: { force?: boolean; jobs: string; json?: boolean }) => {
      const jobs = Number(options.jobs)
      if (!Number.isInteger(jobs) || jobs < 1 || jobs > 8)
        throw new UsageError(`--jobs takes a whole number from 1 to 8, not "${options.jobs}".`)
      const status = progressStatus(
        'Restore {bar} {percentage}% | {stage} | tables {tables} | {rows} rows | files {files}',
      )
      try {
        const result = await restoreArchive(SYSTEM, {
          archive,
          force: options.force,
          jobs,
          // the migrations' lines are progress: on a terminal only
          log: (line) => process.stderr.isTTY && !options.json && console.error(line),
          onProgress: (progress) => status.update(...progressFields(progress)),
        })
        status.stop()
        if (options.json) console.log(JSON.stringify(result))
        else {
          for (const moved of result.movedAside)
            console.error(`The data that was here is kept as ${moved}; remove it when you no longer need it.`)
          for (const lab of result.labs.failed)
            console.error(`The lab "${lab.title}" was not rebuilt: ${lab.reason}; import its folder again.`)
          for (const warning of result.warnings) console.error(warning)
          console.error(
            `Restored ${plural(result.tables, 'table')} (${plural(result.rows, 'row')}) and ` +
              `${plural(result.files.restored + result.files.skipped, 'file')} from ${result.archive}` +
              `${result.secrets === 'restored' ? ', with its secrets' : ''}.`,
          )
        }
      } finally {
        status.stop()
        await disconnect()
      }
    })
}

/** Rows while the tables load, then files. */
function progressFields(p: RestoreProgress): [number, number, Record<string, string | number>] {
  return [
    p.rows.done + p.files.done,
    p.rows.total + p.files.total,
    {
      stage: p.step ? `${p.stage}: ${p.step}` : p.stage,
      tables: `${p.tables.done}/${p.tables.total}`,
      rows: p.rows.done,
      files: `${p.files.done}/${p.files.total}`,
    },
  ]
}
