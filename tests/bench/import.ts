import { spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { createWriteStream } from 'node:fs'
import { chmod, mkdtemp, rm } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { Readable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { stringify } from 'csv-stringify'
import { Sequelize } from 'sequelize'
import { openEmbeddedDatabase } from '#db/embedded.ts'
import { migrate } from '#db/migrate.ts'
import { freePort } from '#tests/setup/global.ts'

// npm run bench:import: `portal users import` on a throwaway database (normal durability), with a
// generated 100,000-row file without passwords (every learner gets a course) and a 1,000-row file
// with passwords (argon2id). Prints rows per second and the command's peak memory. Figures only.

const root = path.resolve(import.meta.dirname, '..', '..')
const LARGE = Number(process.env.BENCH_IMPORT_ROWS ?? 100_000)
const HASHED = Number(process.env.BENCH_IMPORT_PASSWORD_ROWS ?? 1_000)
const COURSE = 'Bench Onboarding'

async function main() {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'portal-bench-import-'))
  // as root, PostgreSQL runs as the "postgres" user, which must reach the folder
  await chmod(dir, 0o755)
  const password = randomBytes(16).toString('hex')
  const server = await openEmbeddedDatabase({
    dataDir: dir,
    port: await freePort(),
    password,
    mode: 'own',
    database: 'portal_bench',
  })
  try {
    const sequelize = new Sequelize(server.url, { dialect: 'postgres', logging: false })
    await migrate(sequelize)
    await sequelize.query(`INSERT INTO courses (title) VALUES ('${COURSE}')`)
    await sequelize.close()

    const large = path.join(dir, 'people.csv')
    await writeCsv(large, LARGE, (i) => [`Learner`, `Number`, `learner${i}@bench.example`, `learner${i}`, COURSE, ''])
    const hashed = path.join(dir, 'with-passwords.csv')
    await writeCsv(hashed, HASHED, (i) => [
      `Coachee`,
      `Person`,
      `hashed${i}@bench.example`,
      `hashed${i}`,
      '',
      'Bench-pass1!',
    ])

    const env = { DATABASE_URL: server.url, DATA_DIR: dir }
    console.log(`portal users import on ${os.availableParallelism()} CPUs (wall time, Node and tsx start included)`)
    const first = await importFile(large, env)
    print(`${LARGE} rows, no passwords, 1 course each`, first)
    const again = await importFile(large, env)
    print(`the same file again (all skipped)`, again)
    const withPasswords = await importFile(hashed, env)
    print(`${HASHED} rows with passwords (argon2id)`, withPasswords)
  } finally {
    await server.stop()
    await rm(dir, { recursive: true, force: true })
  }
}

async function writeCsv(file: string, rows: number, row: (i: number) => string[]) {
  const records = Readable.from(
    (function* () {
      for (let i = 0; i < rows; i++) yield row(i)
    })(),
  )
  await pipeline(
    records,
    stringify({ header: true, columns: ['firstName', 'lastName', 'email', 'userName', 'courses', 'password'] }),
    createWriteStream(file),
  )
}

type Outcome = { seconds: number; peakRssKb: number; summary: Record<string, number> }

function importFile(file: string, env: Record<string, string>): Promise<Outcome> {
  return new Promise((resolve, reject) => {
    const started = performance.now()
    // the bin itself, as `npx portal` runs it (its first line sets the V8 flags the command runs with)
    const child = spawn(path.join(root, 'cli', 'bin.js'), ['users', 'import', file, '--json'], {
      cwd: root,
      env: { ...process.env, ...env, PORTAL_PRINT_PEAK_RSS: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()))
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
    child.on('error', reject)
    child.on('exit', (code) => {
      const seconds = (performance.now() - started) / 1000
      const rss = /peak RSS: (\d+) kB/.exec(stderr)
      if (code !== 0 || !rss) return reject(new Error(`portal users import exited with ${code}: ${stderr}`))
      resolve({ seconds, peakRssKb: Number(rss[1]), summary: JSON.parse(stdout) as Record<string, number> })
    })
  })
}

function print(label: string, { seconds, peakRssKb, summary }: Outcome) {
  const rate = Math.round(summary.rows / seconds)
  console.log(
    `${label.padEnd(40)} ${seconds.toFixed(1).padStart(6)} s  ${String(rate).padStart(7)} rows/s  ` +
      `peak RSS ${(peakRssKb / 1024).toFixed(0)} MB  (created ${summary.created}, skipped ${summary.skipped}, ` +
      `assigned ${summary.assigned}, failed ${summary.failed})`,
  )
}

await main()
