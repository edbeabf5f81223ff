import type { Command } from 'commander'
import { SYSTEM } from '#app/modules/auth/roles.ts'
import { readLabFolder, writeLabFolder } from '#app/modules/labs/folder.server.ts'
import { closeSandbox } from '#app/modules/labs/sandbox.server.ts'
import { checkLabDirectory, importLab, labFolder, listLabs } from '#app/modules/labs/service.server.ts'
import { withDatabase } from '../database.ts'
import { textTable as table } from '../output.ts'

// `portal labs …`: SQL labs as folders an author keeps in version control (docs/labs.md). Data (a table,
// JSON) goes to stdout, what happened to stderr. `labs check` exits 1 when it finds a problem (in the
// folder, its dataset or a solution); the other commands exit 2 on wrong input (a folder that is no lab
// among it) and 1 when the work fails.

/** The command's work, then the sandbox's connections and the database closed. */
const inSandbox = <T>(work: () => Promise<T>) =>
  withDatabase(async () => {
    try {
      return await work()
    } finally {
      await closeSandbox()
    }
  })

export function registerLabs(program: Command) {
  const labs = program.command('labs').description('SQL labs: import a lab folder, check one, list, export')

  labs
    .command('import')
    .description('create a lab of a course from its folder, or update the lab of the same title')
    .argument('<dir>', 'the lab folder: lab.yaml and its dataset')
    .requiredOption('--course <course>', 'the course: its id or exact title')
    .option('--json', 'print what was imported as JSON')
    .action(async (dir: string, options: { course: string; json?: boolean }) => {
      const imported = await inSandbox(async () =>
        importLab(SYSTEM, { folder: await readLabFolder(dir), course: options.course }),
      )
      if (options.json) return console.log(JSON.stringify(imported, null, 2))
      const { kept, added, removed } = imported.exercises
      console.error(
        `${imported.created ? 'Created' : 'Updated'} the lab "${imported.title}" of ${imported.courseTitle} (${imported.id}): ` +
          `${added.length} exercises added, ${kept.length} kept with their attempts, ${removed.length} removed; ` +
          `built in ${(imported.buildMs / 1000).toFixed(1)} s.`,
      )
    })

  labs
    .command('check')
    .description('build a lab folder in a throwaway sandbox and run every solution and verify query')
    .argument('<dir>', 'the lab folder')
    .option('--json', 'print the report as JSON')
    .action(async (dir: string, options: { json?: boolean }) => {
      const report = await inSandbox(() => checkLabDirectory(dir))
      if (options.json) console.log(JSON.stringify(report, null, 2))
      else {
        if (report.exercises.length)
          console.log(
            table([
              ['EXERCISE', 'RESULT', 'MS', 'MESSAGE'],
              ...report.exercises.map((e) => [e.key, e.ok ? 'ok' : 'FAILED', String(e.ms), e.message]),
            ]),
          )
        for (const problem of report.problems) console.error(`portal: ${problem}`)
        console.error(
          report.ok
            ? `The lab "${report.title}" is ready: dataset built in ${report.buildMs} ms, ${report.exercises.length} exercises solved.`
            : `The lab "${report.title}" has ${report.problems.length} problem${report.problems.length === 1 ? '' : 's'}.`,
        )
      }
      if (!report.ok) process.exitCode = 1
    })

  labs
    .command('list')
    .description('every lab, by course')
    .option('--json', 'print the labs as JSON')
    .action(async (options: { json?: boolean }) => {
      const found = await withDatabase(() => listLabs(SYSTEM))
      if (options.json) return console.log(JSON.stringify(found, null, 2))
      if (!found.length) return console.error('No labs yet: import one with portal labs import DIR --course COURSE.')
      console.log(
        table([
          ['ID', 'COURSE', 'TITLE', 'EXERCISES', 'VISIBLE'],
          ...found.map((lab) => [
            lab.id,
            lab.courseTitle,
            lab.title,
            String(lab.exercises),
            lab.visible ? 'yes' : 'no',
          ]),
        ]),
      )
    })

  labs
    .command('export')
    .description('write a lab back as its folder')
    .argument('<id>', 'the lab')
    .argument('<dir>', 'the folder to write: new, empty, or a lab folder to overwrite')
    .option('--json', 'print what was written as JSON')
    .action(async (id: string, dir: string, options: { json?: boolean }) => {
      const folder = await withDatabase(() => labFolder(SYSTEM, id))
      await writeLabFolder(dir, folder)
      const written = { id, dir, exercises: folder.definition.exercises.length, files: folder.dataFiles.length + 2 }
      if (options.json) return console.log(JSON.stringify(written, null, 2))
      console.error(
        `Wrote the lab "${folder.definition.title}" to ${dir}: lab.yaml, ${folder.definition.dataset} and ${folder.dataFiles.length} data files.`,
      )
    })
}
