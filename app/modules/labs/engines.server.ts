import { PGlite } from '@electric-sql/pglite'
import { compareResults, type ResultSet } from './compare.ts'
import type { Expected, GradedExercise } from './grading.server.ts'
import { loadPracticeDataset, runPracticeSql, textParsers, type PracticeDataset } from './practice.ts'

// Practice runs in the learner's browser on PGlite, grading on the server's PostgreSQL. An author's check runs each
// exercise's solution on PGlite too, loaded by the same code as the browser's, and compares with what the server
// gave, so a learner never practises on answers that grading would call wrong.

/** What the comparison needs of an exercise: how it is checked, its solution, and what the server gave. */
type ComparedExercise = Pick<GradedExercise, 'key' | 'check' | 'verify' | 'columns'> & {
  solution: string
  ordered: boolean
  order: GradedExercise['order']
  expected: Expected
}

/** What PGlite read for one exercise, as the server's `Expected` has it. */
type Read = (
  db: PGlite,
  parsers: Parameters<typeof runPracticeSql>[2],
  exercise: ComparedExercise,
) => Promise<ResultSet[]>

/** Per check kind, how PGlite reads the exercise's answer; a new kind is one more entry. */
const READERS: Record<ComparedExercise['check'], Read> = {
  result: async (db, parsers, exercise) => [await runPracticeSql(db, exercise.solution, parsers)],
  // the solution's change is undone, so every exercise starts from the dataset as loaded
  state: async (db, parsers, exercise) => {
    await db.exec('BEGIN')
    try {
      await runPracticeSql(db, exercise.solution, parsers)
      const read: ResultSet[] = []
      for (const query of exercise.verify) read.push(await runPracticeSql(db, query, parsers))
      return read
    } finally {
      await db.exec('ROLLBACK')
    }
  },
  // the final query's rows, after the setup statements (an index, a view), all undone; plans are the server's
  plan: async (db, parsers, exercise) => {
    await db.exec('BEGIN')
    try {
      return [await runPracticeSql(db, exercise.solution, parsers)]
    } finally {
      await db.exec('ROLLBACK')
    }
  },
}

/** What the server gave, as result sets in the order the readers return them. */
const serverSets = (expected: Expected): ResultSet[] => ('result' in expected ? [expected.result] : expected.verify)

/**
 * Loads the dataset into one fresh PGlite and runs every exercise there: for each exercise whose answer differs
 * from the server's, its key and the difference in plain words. A dataset PGlite cannot load is one problem.
 */
export async function compareEngines(
  dataset: PracticeDataset,
  exercises: readonly ComparedExercise[],
): Promise<{ key: string; message: string }[]> {
  const db = await PGlite.create()
  try {
    try {
      await loadPracticeDataset(db, dataset)
    } catch (error) {
      return [{ key: 'dataset', message: `PGlite cannot load it: ${(error as Error).message}` }]
    }
    const parsers = await textParsers(db)
    const differences: { key: string; message: string }[] = []
    for (const exercise of exercises) {
      let read: ResultSet[]
      try {
        read = await READERS[exercise.check](db, parsers, exercise)
      } catch (error) {
        differences.push({ key: exercise.key, message: `fails in PGlite: ${(error as Error).message}` })
        continue
      }
      const expected = serverSets(exercise.expected)
      const order =
        exercise.check === 'state' || exercise.order === 'any'
          ? 'any'
          : exercise.order === 'strict' || exercise.ordered
            ? 'strict'
            : 'any'
      const found = expected
        .map((set, i) =>
          compareResults(set, read[i] ?? { columns: [], rows: [] }, { order, columns: exercise.columns, show: 3 }),
        )
        .find((d) => !d.passed)
      if (found)
        differences.push({ key: exercise.key, message: `PGlite's answer differs from the server's: ${found.message}` })
    }
    return differences
  } finally {
    await db.close()
  }
}
