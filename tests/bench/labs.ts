import path from 'node:path'
import pg from 'pg'
import { QueryTypes } from 'sequelize'
import { ROLE, SYSTEM } from '#app/modules/auth/roles.ts'
import { readLabFolder } from '#app/modules/labs/folder.server.ts'
import { closeSandbox } from '#app/modules/labs/sandbox.server.ts'
import { attemptExercise, importLab } from '#app/modules/labs/service.server.ts'
import { disconnect } from '#db/client.ts'
import { benchDatabase } from '#tests/bench/database.ts'
import { assignCourse, makeCourse, makeLearner } from '#tests/factories.ts'

// npm run bench:labs (part of npm run bench): grading the demo labs' exercises, each answered with its own
// solution, beside a floor measured in the same run. Figures only, never pass/fail.
//   floor    the same solution run directly on the lab's database as the sandbox's learner role, on an open
//            connection: what the query itself costs
//   grading  attemptExercise as a learner's request calls it: access, vetting by the parser, the sandbox's
//            rolled-back transaction and cursor (or a copy, for state checks), the comparison, the attempt kept
//
//   BENCH_LAB_ROUNDS=20   attempts per exercise (default 20)

const ROUNDS = Number(process.env.BENCH_LAB_ROUNDS ?? 20)
const LABS = [
  { folder: 'sql-fundamentals', course: 'SQL Fundamentals' },
  { folder: 'data-warehousing', course: 'Data warehousing' },
]

const progress = (line: string) => process.stderr.write(`${line}\n`)

function percentile(sorted: number[], p: number) {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]
}

const figures = (samples: number[]) => {
  const sorted = [...samples].sort((a, b) => a - b)
  return { p50: percentile(sorted, 50), p95: percentile(sorted, 95), max: sorted[sorted.length - 1] }
}

async function main() {
  const { url, sequelize: setup, close } = await benchDatabase('labs')
  try {
    const learner = await makeLearner()
    const actor = { id: learner.id, roleId: ROLE.learner }

    const floor: number[] = []
    const grading: number[] = []
    const rows: string[][] = []
    for (const lab of LABS) {
      const course = await makeCourse({ title: lab.course })
      await assignCourse(learner.id, course.id)
      const folder = await readLabFolder(path.resolve(import.meta.dirname, '../../db/seeds/labs', lab.folder))
      progress(`building ${folder.definition.title} …`)
      const imported = await importLab(SYSTEM, { folder, course: course.id })
      const [built] = await setup.query<{ database: string }>('SELECT database FROM labs WHERE id = $1', {
        bind: [imported.id],
        type: QueryTypes.SELECT,
      })
      const [{ password, role }] = await setup.query<{ password: string; role: string }>(
        'SELECT role, password FROM lab_sandbox',
        { type: QueryTypes.SELECT },
      )
      const direct = new URL(url)
      direct.pathname = `/${built.database}`
      direct.username = role
      direct.password = password
      const client = new pg.Client({ connectionString: direct.toString() })
      await client.connect()
      for (const exercise of folder.definition.exercises) {
        const own: number[] = []
        const graded: number[] = []
        for (let round = 0; round < ROUNDS; round++) {
          if (exercise.check === 'result') {
            const started = performance.now()
            await client.query('BEGIN READ ONLY')
            await client.query(exercise.solution)
            await client.query('ROLLBACK')
            own.push(performance.now() - started)
          }
          const started = performance.now()
          const attempt = await attemptExercise(actor, {
            labId: imported.id,
            exercise: exercise.key,
            sql: exercise.solution,
          })
          graded.push(performance.now() - started)
          if (!attempt.passed) throw new Error(`${exercise.key}: its own solution did not pass: ${attempt.message}`)
        }
        floor.push(...own)
        grading.push(...graded)
        const g = figures(graded)
        const f = own.length ? figures(own) : undefined
        rows.push([
          `${lab.folder}/${exercise.key}`,
          exercise.check,
          f ? f.p50.toFixed(1) : '',
          g.p50.toFixed(1),
          g.p95.toFixed(1),
          f ? `${(g.p50 / f.p50).toFixed(2)}×` : '',
        ])
      }
      await client.end()
    }
    const widths = rows[0].map((_, i) => Math.max(...[...rows, HEADER].map((r) => r[i].length)))
    const line = (r: string[]) =>
      r.map((c, i) => (i === 0 || i === 1 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ')
    console.log(`\nGrading the demo labs' exercises with their own solutions, ${ROUNDS} attempts each (ms):`)
    console.log(line(HEADER))
    for (const r of rows) console.log(line(r))
    const all = figures(grading)
    const base = figures(floor)
    console.log(
      `\nall attempts: grading p50 ${all.p50.toFixed(1)} ms, p95 ${all.p95.toFixed(1)} ms, max ${all.max.toFixed(1)} ms;` +
        ` floor (result checks) p50 ${base.p50.toFixed(1)} ms, p95 ${base.p95.toFixed(1)} ms`,
    )
  } finally {
    await closeSandbox()
    await disconnect()
    await close()
  }
}

const HEADER = ['exercise', 'check', 'floor p50', 'grading p50', 'grading p95', 'vs floor']

await main()
