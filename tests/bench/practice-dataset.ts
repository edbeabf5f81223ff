import path from 'node:path'
import { gzipSync } from 'node:zlib'
import { PGlite } from '@electric-sql/pglite'
import { readLabFolder } from '#app/modules/labs/folder.server.ts'
import { loadPracticeDataset } from '#app/modules/labs/practice.ts'
import { practiceDataset } from '#app/modules/labs/sandbox.server.ts'

// npm run bench:practice-dataset: the two forms a lab's dataset can reach the learner's browser in, measured in
// Node on the demo labs. Figures only, never pass/fail.
//   statements  the dataset's statements and CSV files as JSON (sent gzipped), run on a fresh PGlite + ANALYZE
//   dump        PGlite's data directory after that load (dumpDataDir('gzip')), opened with loadDataDir
//   reset       in the same instance: the public schema dropped and the statements run again
// A fresh PGlite is made in both forms' first visit; the dump form saves the empty cluster's initdb at the
// price of a bigger download.
//
//   BENCH_PRACTICE_ROUNDS=3   rounds per figure (default 3), the median shown

const ROUNDS = Number(process.env.BENCH_PRACTICE_ROUNDS ?? 3)
const LABS = ['sql-fundamentals', 'data-warehousing']

const median = (samples: number[]) => [...samples].sort((a, b) => a - b)[Math.floor(samples.length / 2)] ?? NaN
const ms = (value: number) => `${value.toFixed(0)} ms`
const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`

async function timed<T>(work: () => Promise<T>): Promise<[T, number]> {
  const start = performance.now()
  const result = await work()
  return [result, performance.now() - start]
}

async function measure(lab: string) {
  const folder = await readLabFolder(path.join('db/seeds/labs', lab))
  const dataset = await practiceDataset({
    sql: folder.datasetSql,
    name: folder.definition.dataset,
    files: folder.dataFiles,
  })
  const json = JSON.stringify(dataset)
  const fresh: number[] = []
  const load: number[] = []
  const dump: number[] = []
  const open: number[] = []
  const reload: number[] = []
  let dumpBytes = 0
  for (let round = 0; round < ROUNDS; round++) {
    const [db, created] = await timed(() => PGlite.create())
    const [, loaded] = await timed(() => loadPracticeDataset(db, dataset))
    const [blob, dumped] = await timed(() => db.dumpDataDir('gzip'))
    const [, reloaded] = await timed(async () => {
      await db.exec('DROP SCHEMA public CASCADE; CREATE SCHEMA public')
      await loadPracticeDataset(db, dataset)
    })
    reload.push(reloaded)
    await db.close()
    dumpBytes = blob.size
    const [again, opened] = await timed(() => PGlite.create({ loadDataDir: blob }))
    await again.close()
    fresh.push(created)
    load.push(loaded)
    dump.push(dumped)
    open.push(opened)
  }
  console.log(`${lab} (${dataset.statements.length} statements, median of ${ROUNDS})`)
  console.log(`  statements form: ${kb(json.length)} JSON, ${kb(gzipSync(json).length)} gzipped`)
  console.log(`    fresh PGlite.create ${ms(median(fresh))} + load and ANALYZE ${ms(median(load))}`)
  console.log(`  dump form: ${kb(dumpBytes)} (dumpDataDir gzip), made in ${ms(median(dump))}`)
  console.log(`    PGlite.create({ loadDataDir }) ${ms(median(open))}`)
  console.log(`  reset in place (drop the public schema, load again): ${ms(median(reload))}`)
}

for (const lab of LABS) await measure(lab)
