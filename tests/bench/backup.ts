import { createWriteStream } from 'node:fs'
import { mkdtemp, readdir, rm, stat } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { pipeline } from 'node:stream/promises'
import { setTimeout as pause } from 'node:timers/promises'
import pg from 'pg'
import { to as copyTo } from 'pg-copy-streams'
import { hashPassword } from '#app/modules/auth/password.server.ts'
import { ROLE, type Actor } from '#app/modules/auth/roles.ts'
import { login } from '#app/modules/auth/service.server.ts'
import { COPY_SETTINGS, withSnapshot } from '#app/modules/backups/snapshot.server.ts'
import { openArchive } from '#app/modules/backups/source.server.ts'
import { verifyArchive } from '#app/modules/backups/verify.server.ts'
import { storeFile } from '#app/modules/files/service.server.ts'
import { recordProgress } from '#app/modules/progress/service.server.ts'
import { MIGRATION_NAMES } from '#db/migrate.ts'
import { treeCpuMs, postmasterPid, runPortal, timeCalls, type CallFigures } from '#tests/bench/measure.ts'

// The backup and restore part of the scale bench (tests/bench/scale.ts calls it last, on its database;
// `npm run bench:backup` builds that database and runs this part only). Printed, figures only, each goal
// beside its figure as met or missed:
//
//   floor     COPY … TO STDOUT of every table a backup archives (the tables and columns snapshot.server.ts
//             finds), one after another on one connection of this process, through pg-copy-streams into
//             /dev/null: what reading the rows out of PostgreSQL costs with nothing around it
//   backup    `portal backup --to <folder>/ --json` in a child process: seconds, MB/s of the same COPY text
//             (the manifest's bytes), the archive's size, peak RSS, CPU of the command and of PostgreSQL;
//             with gzip too at small scales (BENCH_SCALE ≤ 0.05, or BENCH_BACKUP_GZIP=1)
//   restore   `portal restore ARCHIVE --json` into an empty database of the same server, dropped after
//   load      heartbeats, sign-ins and uploads through the services in this process at a fixed rate, idle
//             and then while backups run one after another (at least BENCH_BACKUP_LOAD_SECONDS, default 30)

/** Goals (figures only: a missed goal is printed, never fails the run). */
const GOALS = { backupOfFloor: 0.5, peakRssMb: 300, restoreOfBackup: 3, loadP99OfIdle: 2 }
const LOAD_SECONDS = Number(process.env.BENCH_BACKUP_LOAD_SECONDS ?? 30)
/** The load beside a backup: well below what this process and the server take, so slowing shows, not queueing. */
const HEARTBEATS = { perSecond: 50, inFlight: 4 }
const SIGN_INS = { perSecond: 1, inFlight: 2 }
/** an assessment of 256 KiB, as a learner's upload stores it (disk, and its row) */
const UPLOADS = { perSecond: 2, inFlight: 2, bytes: 256 * 1024 }
/** Learners given a password for the sign-ins, one address each (no throttle: every password is right). */
const SIGN_IN_LEARNERS = 20
const PASSWORD = 'Bench-backup-pass1!'

type Pair = { userId: string; courseId: string; videoId: string }
type Table = { name: string; columns: string[] }

/**
 * `url`: a superuser's address of the database to back up (the bench's own server); `dataDir` holds the
 * server's data folder and is the portal's DATA_DIR; `pairs`: learner × video pairs for the heartbeats. The
 * app's pool must be on `url`.
 */
export async function measureBackup(options: { url: string; dataDir: string; pairs: Pair[]; scale: number }) {
  const { url, dataDir, pairs } = options
  const postmaster = postmasterPid(dataDir)
  const work = await mkdtemp(path.join(os.tmpdir(), 'portal-bench-backup-'))
  const admin = new pg.Client({ connectionString: url })
  await admin.connect()
  try {
    const tables: Table[] = await withSnapshot(url, async (snapshot) =>
      snapshot.tables.map(({ name, columns }) => ({ name, columns })),
    )
    const size = await admin.query<{ size: string }>(
      'SELECT pg_size_pretty(pg_database_size(current_database())) AS size',
    )
    console.log(
      `\nbackup and restore: the ${tables.length} tables a backup archives, database ${size.rows[0].size}; ` +
        `load average (1 min) ${loadAverage()}`,
    )
    const signIns = await signInLearners(admin)

    // the floor: the same COPY text, straight to /dev/null
    const floor = await copyFloor(url, tables, postmaster)
    console.log(
      `floor: COPY of every table to /dev/null, one connection of this process: ${mb(floor.bytes)} in ` +
        `${floor.seconds.toFixed(1)} s, ${rate(floor.bytes, floor.seconds)}; CPU ${cpu(floor)}`,
    )
    for (const table of floor.largest)
      console.log(
        `  ${table.name.padEnd(26)} ${mb(table.bytes).padStart(9)} ${table.seconds.toFixed(1).padStart(6)} s ` +
          `${rate(table.bytes, table.seconds).padStart(11)}`,
      )

    // the memory of the command itself: loaded, doing nothing
    const idleMb = (await runPortal(['backup', '--help'])).peakKb / 1024

    // the backup, quiet
    const zstd = await backup(url, work, 'zstd', postmaster)
    const copyBytes = zstd.copyBytes
    const ofFloor = copyBytes / zstd.seconds / (floor.bytes / floor.seconds)
    console.log(
      `portal backup --to <folder>/ --json (zstd, the default): ${zstd.seconds.toFixed(1)} s, ` +
        `${rate(copyBytes, zstd.seconds)} of COPY text (${mb(copyBytes)} per the manifest) = ` +
        `${ofFloor.toFixed(2)} × the floor's (goal ≥ ${GOALS.backupOfFloor}: ${met(ofFloor >= GOALS.backupOfFloor)})`,
    )
    console.log(
      `  archive ${mb(zstd.archiveBytes)}, ${(copyBytes / zstd.archiveBytes).toFixed(1)} × smaller than the COPY text; ` +
        `peak RSS ${zstd.peakMb.toFixed(0)} MB (goal < ${GOALS.peakRssMb} MB: ${met(zstd.peakMb < GOALS.peakRssMb)}; ` +
        `\`portal backup --help\` ${idleMb.toFixed(0)} MB); ` +
        `CPU ${cpu(zstd)}; ${zstd.tables} tables, ${zstd.rows.toLocaleString('en-US')} rows`,
    )
    console.log(`  what the backup's connection was doing: ${shares(zstd.samples, zstd.seconds)}`)
    if (copyBytes !== floor.bytes)
      console.log(`  (the floor read ${floor.bytes - copyBytes} bytes more than the backup: the data changed between)`)
    console.log(
      `  the archive read back in this process (verifyArchive, as \`backup verify\` and a restore's first pass): ` +
        `${zstd.verifySeconds.toFixed(1)} s, ${rate(copyBytes, zstd.verifySeconds)} of COPY text`,
    )

    // gzip beside it, where it is quick to have: the default is a measured choice
    if (process.env.BENCH_BACKUP_GZIP === '1' || (process.env.BENCH_BACKUP_GZIP !== '0' && options.scale <= 0.05)) {
      const gzip = await backup(url, work, 'gzip', postmaster)
      console.log(
        `portal backup --compression gzip: ${gzip.seconds.toFixed(1)} s, ${rate(gzip.copyBytes, gzip.seconds)} of COPY ` +
          `text = ${(gzip.copyBytes / gzip.seconds / (floor.bytes / floor.seconds)).toFixed(2)} × the floor's; archive ` +
          `${mb(gzip.archiveBytes)}, ${(gzip.copyBytes / gzip.archiveBytes).toFixed(1)} × smaller; peak RSS ` +
          `${gzip.peakMb.toFixed(0)} MB; CPU ${cpu(gzip)}; read back in ${gzip.verifySeconds.toFixed(1)} s`,
      )
      console.log(
        `  zstd against gzip: ${(zstd.seconds / gzip.seconds).toFixed(2)} × the time, ` +
          `${(zstd.archiveBytes / gzip.archiveBytes).toFixed(2)} × the size, ` +
          `${(zstd.verifySeconds / gzip.verifySeconds).toFixed(2)} × the time to read back`,
      )
      await rm(gzip.archive, { force: true })
    }

    // the restore, into an empty database of the same server
    const restored = await restore(admin, url, zstd.archive, work, postmaster)
    const ofBackup = restored.seconds / zstd.seconds
    console.log(
      `portal restore ARCHIVE --json into an empty database: ${restored.seconds.toFixed(1)} s (verify, schema, load, ` +
        `keys, indexes, foreign keys, migrations, labs) = ${ofBackup.toFixed(2)} × the backup's ` +
        `(goal ≤ ${GOALS.restoreOfBackup}×: ${met(ofBackup <= GOALS.restoreOfBackup)}); peak RSS ` +
        `${restored.peakMb.toFixed(0)} MB (goal < ${GOALS.peakRssMb} MB: ${met(restored.peakMb < GOALS.peakRssMb)}); ` +
        `CPU ${cpu(restored)}; ${restored.rows.toLocaleString('en-US')} rows` +
        `${restored.rows === zstd.rows ? ', as many as the archive' : `, the archive has ${zstd.rows}`}; ` +
        `database ${restored.size}`,
    )
    console.log(`  what the server was doing for it: ${shares(restored.samples, restored.seconds, 6)}`)
    await rm(zstd.archive, { force: true })

    // what the restore left in the server's buffers written out first, so that the idle window is idle: right
    // after a full-scale restore, the idle heartbeats' p99 came out ten times the one during the backup
    await admin.query('CHECKPOINT')
    await underLoad(work, pairs, signIns, zstd.seconds)
    console.log(`load average (1 min) at the end of the backup part: ${loadAverage()}`)
  } finally {
    await admin.end().catch(() => undefined)
    await rm(work, { recursive: true, force: true })
  }
}

// ——— the floor ———

/** COPY of every table, as a backup's snapshot reads it (one REPEATABLE READ transaction, its settings). */
async function copyFloor(url: string, tables: Table[], postmaster: number) {
  const client = new pg.Client({ connectionString: url, application_name: 'bench-copy-floor' })
  await client.connect()
  try {
    await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY')
    for (const [name, value] of Object.entries(COPY_SETTINGS))
      await client.query('SELECT set_config($1, $2, true)', [name, String(value)])
    const perTable: { name: string; bytes: number; seconds: number }[] = []
    const cpuBefore = { node: process.cpuUsage(), pg: treeCpuMs(postmaster) }
    const started = performance.now()
    for (const table of tables) {
      const columns = table.columns.map((c) => client.escapeIdentifier(c)).join(', ')
      const tableStarted = performance.now()
      const source = client.query(copyTo(`COPY ${client.escapeIdentifier(table.name)} (${columns}) TO STDOUT`))
      let bytes = 0
      source.on('data', (chunk: Buffer) => (bytes += chunk.length))
      await pipeline(source, createWriteStream('/dev/null'))
      perTable.push({ name: table.name, bytes, seconds: (performance.now() - tableStarted) / 1000 })
    }
    const seconds = (performance.now() - started) / 1000
    const node = process.cpuUsage(cpuBefore.node)
    await client.query('COMMIT')
    return {
      bytes: perTable.reduce((sum, t) => sum + t.bytes, 0),
      seconds,
      nodeCpuMs: (node.user + node.system) / 1000,
      pgCpuMs: treeCpuMs(postmaster) - cpuBefore.pg,
      largest: perTable.sort((a, b) => b.bytes - a.bytes).slice(0, 4),
    }
  } finally {
    await client.end()
  }
}

// ——— backup and restore, each by the CLI in a child process ———

async function backup(url: string, work: string, compression: 'zstd' | 'gzip', postmaster: number) {
  const folder = await mkdtemp(path.join(work, `${compression}-`))
  const pgBefore = treeCpuMs(postmaster)
  const { result: run, samples } = await sampled(url, backupActivity, () =>
    runPortal(['backup', '--to', `${folder}/`, '--json', '--compression', compression]),
  )
  const pgCpuMs = treeCpuMs(postmaster) - pgBefore
  const result = JSON.parse(run.stdout.trim().split('\n').at(-1) ?? '{}') as {
    location: string
    bytes: number
    tables: number
    rows: number
  }
  const [name] = await readdir(folder)
  const archive = path.join(folder, name)
  // the manifest's own count of the COPY text, read back as `portal backup verify` reads it
  const verifyStarted = performance.now()
  const report = await verifyArchive(await openArchive(archive), { knownMigrations: MIGRATION_NAMES })
  const verifySeconds = (performance.now() - verifyStarted) / 1000
  if (!report.ok || !report.manifest)
    throw new Error(`bench: the backup does not verify: ${report.problems[0]?.message ?? 'no manifest'}`)
  return {
    archive,
    archiveBytes: (await stat(archive)).size,
    copyBytes: report.manifest.tables.reduce((sum, t) => sum + t.bytes, 0),
    tables: result.tables,
    rows: result.rows,
    seconds: run.seconds,
    peakMb: run.peakKb / 1024,
    nodeCpuMs: run.cpuMs,
    pgCpuMs,
    verifySeconds,
    samples,
  }
}

async function restore(admin: pg.Client, url: string, archive: string, work: string, postmaster: number) {
  const name = 'portal_bench_restore'
  await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
  await admin.query(`CREATE DATABASE ${name} TEMPLATE template0`)
  const target = new URL(url)
  target.pathname = `/${name}`
  // a data folder of its own: the restore puts the stored files back there
  const dataDir = await mkdtemp(path.join(work, 'restore-data-'))
  try {
    const pgBefore = treeCpuMs(postmaster)
    const { result: run, samples } = await sampled(url, restoreActivity, () =>
      runPortal(['restore', archive, '--json'], { ...process.env, DATABASE_URL: target.toString(), DATA_DIR: dataDir }),
    )
    const pgCpuMs = treeCpuMs(postmaster) - pgBefore
    const result = JSON.parse(run.stdout.trim().split('\n').at(-1) ?? '{}') as { rows: number }
    const client = new pg.Client({ connectionString: target.toString() })
    await client.connect()
    let labDatabases: string[] = []
    let size = ''
    try {
      size = (
        await client.query<{ size: string }>('SELECT pg_size_pretty(pg_database_size(current_database())) AS size')
      ).rows[0].size
      // the labs' databases the restore built on this server go with it
      const { rows } = await client.query<{ name: string }>(
        `SELECT database AS name FROM labs WHERE database IS NOT NULL
         UNION SELECT unnest(state_copies) FROM labs`,
      )
      labDatabases = rows.map((r) => r.name)
    } finally {
      await client.end()
    }
    for (const database of [name, ...labDatabases])
      await admin.query(`DROP DATABASE IF EXISTS ${admin.escapeIdentifier(database)} WITH (FORCE)`)
    return {
      seconds: run.seconds,
      peakMb: run.peakKb / 1024,
      nodeCpuMs: run.cpuMs,
      pgCpuMs,
      rows: result.rows,
      size,
      samples,
    }
  } catch (error) {
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).catch(() => undefined)
    throw error
  } finally {
    await rm(dataDir, { recursive: true, force: true })
  }
}

// ——— where the time goes: PostgreSQL's sessions sampled ———

type Activity = { query: string; state: string | null; wait: string | null; application: string }

/**
 * Runs `work` while pg_stat_activity is read every 100 ms on a connection of its own: each sample is the
 * client sessions of the server other than this sampler's, named by `classify`. Answers the count of each name.
 */
async function sampled<T>(url: string, classify: (sessions: Activity[]) => string, work: () => Promise<T>) {
  const client = new pg.Client({ connectionString: url, application_name: 'bench-sampler' })
  await client.connect()
  const samples = new Map<string, number>()
  let stopped = false
  const sampling = (async () => {
    while (!stopped) {
      const { rows } = await client.query<Activity>(
        `SELECT query, state, wait_event_type || ':' || wait_event AS wait, application_name AS application
           FROM pg_stat_activity WHERE backend_type = 'client backend' AND pid <> pg_backend_pid()`,
      )
      const name = classify(rows)
      samples.set(name, (samples.get(name) ?? 0) + 1)
      await pause(100)
    }
  })()
  try {
    return { result: await work(), samples }
  } finally {
    stopped = true
    await sampling.catch(() => undefined)
    await client.end()
  }
}

/** The backup's one connection: reading rows, or waiting for the backup process to take them. */
function backupActivity(sessions: Activity[]) {
  const session = sessions.find((s) => s.application === 'portal-backup')
  if (!session) return 'not connected (starting, or the stored files and the manifest)'
  if (session.state !== 'active') return `${session.state} (between two statements)`
  if (!session.query.startsWith('COPY')) return 'another statement'
  if (session.wait === 'Client:ClientWrite') return 'COPY, waiting for the backup process to read'
  if (session.wait?.startsWith('IO:')) return 'COPY, reading from disk'
  return 'COPY, PostgreSQL at work'
}

/**
 * The restore's statements by kind, and the table of a COPY, an index build or a foreign key check after
 * " — "; its own work (reading the archive, the migrations' JavaScript) when none runs.
 */
function restoreActivity(sessions: Activity[]) {
  const active = sessions.filter((s) => s.state === 'active')
  if (!active.length) return 'no statement running (the restore process at work: verifying, reading)'
  const query = active[0].query.replace(/\s+/g, ' ').trim()
  const table = /^(?:COPY|ALTER TABLE) "?(\w+)|^CREATE (?:UNIQUE )?INDEX .*? ON (?:ONLY )?(?:\w+\.)?"?(\w+)/i.exec(
    query,
  )
  const of = ` — ${table?.[1] ?? table?.[2] ?? '?'}`
  if (/^COPY .* FROM STDIN/i.test(query))
    return active[0].wait === 'Client:ClientRead' ? `COPY FROM, waiting for the restore process${of}` : `COPY FROM${of}`
  if (/^CREATE (UNIQUE )?INDEX|ADD CONSTRAINT \S+ (PRIMARY KEY|UNIQUE|EXCLUDE)/i.test(query)) return `index builds${of}`
  if (/ADD CONSTRAINT \S+ FOREIGN KEY|VALIDATE CONSTRAINT/i.test(query)) return `foreign key checks${of}`
  if (/^ANALYZE/i.test(query)) return 'ANALYZE'
  if (/DATABASE/i.test(query)) return 'lab databases'
  return 'other statements (migrations, triggers, sequences)'
}

/**
 * Each kind's share of the samples and about as many seconds of the command's `seconds`; a kind is a
 * sample's name up to " — ". With `top`, that many of the largest names whole after.
 */
const shares = (samples: Map<string, number>, seconds: number, top = 0) => {
  const total = [...samples.values()].reduce((sum, n) => sum + n, 0)
  const kinds = new Map<string, number>()
  for (const [name, n] of samples) kinds.set(name.split(' — ')[0], (kinds.get(name.split(' — ')[0]) ?? 0) + n)
  const list = (entries: Map<string, number>, count: number) =>
    [...entries]
      .sort(([, a], [, b]) => b - a)
      .slice(0, count)
      .map(([name, n]) => `${name} ${Math.round((100 * n) / total)} % (${((seconds * n) / total).toFixed(1)} s)`)
      .join('; ')
  return list(kinds, kinds.size) + (top ? `\n  the largest: ${list(samples, top)}` : '')
}

// ——— under load ———

/** Learners given one password (hashed once) for the sign-ins: their user names. */
async function signInLearners(admin: pg.Client) {
  const { rows } = await admin.query<{ user_name: string }>(
    `UPDATE users SET password_hash = $1
      WHERE id IN (SELECT id FROM users WHERE role_id = $2 ORDER BY user_name LIMIT $3)
     RETURNING user_name`,
    [await hashPassword(PASSWORD), ROLE.learner, SIGN_IN_LEARNERS],
  )
  return rows.map((r) => r.user_name)
}

/**
 * Heartbeats, sign-ins and uploads at a fixed rate, as a learner's requests run them (the bench's own process plays
 * the web server): idle for LOAD_SECONDS, then while backups run one after another until LOAD_SECONDS have
 * passed (one at least). p99 during the backups against idle; the goal is within 2×.
 */
async function underLoad(work: string, pairs: Pair[], userNames: string[], quietBackupSeconds: number) {
  let heartbeat = 0
  let signIn = 0
  const heartbeatCall = () => {
    const pair = pairs[heartbeat % pairs.length]
    // one second further each time the pair comes round (within the credit: 1 s per pair every few seconds)
    const second = Math.floor(heartbeat++ / pairs.length) % 299
    const learner: Actor = { id: pair.userId, roleId: ROLE.learner }
    return () =>
      recordProgress(learner, {
        courseId: pair.courseId,
        videoId: pair.videoId,
        watched: [[second, second + 1]],
        position: second + 1,
      })
  }
  const signInCall = () => {
    const n = signIn++ % userNames.length
    return () => login({ email: userNames[n], password: PASSWORD }, { address: `198.51.100.${n + 1}` })
  }
  let upload = 0
  const uploadBody = Buffer.alloc(UPLOADS.bytes, '%PDF-1.7 answer ')
  const uploadCall = () => {
    const pair = pairs[upload++ % pairs.length]
    return () =>
      storeFile({
        purpose: 'assessment',
        name: 'answer.pdf',
        contentType: 'application/pdf',
        body: uploadBody,
        uploadedBy: pair.userId,
      })
  }
  function* until(done: () => boolean, make: () => () => Promise<unknown>) {
    while (!done()) yield make()
  }
  const phase = async (during: () => Promise<void>) => {
    let done = false
    const loads = Promise.all([
      timeCalls(
        until(() => done, heartbeatCall),
        HEARTBEATS.inFlight,
        { perSecond: HEARTBEATS.perSecond },
      ),
      timeCalls(
        until(() => done, signInCall),
        SIGN_INS.inFlight,
        { perSecond: SIGN_INS.perSecond },
      ),
      timeCalls(
        until(() => done, uploadCall),
        UPLOADS.inFlight,
        { perSecond: UPLOADS.perSecond },
      ),
    ])
    try {
      await during()
    } finally {
      done = true
    }
    const [heartbeats, signIns, uploads] = await loads
    return { heartbeats, signIns, uploads }
  }

  await phase(() => pause(2000)) // warm-up, not measured
  const idle = await phase(() => pause(LOAD_SECONDS * 1000))
  const backups: number[] = []
  const busy = await phase(async () => {
    const started = performance.now()
    do {
      const folder = await mkdtemp(path.join(work, 'load-'))
      backups.push((await runPortal(['backup', '--to', `${folder}/`, '--json'])).seconds)
      await rm(folder, { recursive: true, force: true })
    } while (performance.now() - started < LOAD_SECONDS * 1000)
  })

  console.log(
    `\nunder load, through the services in this process: heartbeats ${HEARTBEATS.perSecond}/s ` +
      `(${HEARTBEATS.inFlight} in flight at most, over ${pairs.length} learner × video pairs) and sign-ins ` +
      `${SIGN_INS.perSecond}/s (${SIGN_INS.inFlight} in flight at most, argon2id, ${userNames.length} learners) and ` +
      `uploads ${UPLOADS.perSecond}/s (${UPLOADS.inFlight} in flight at most, ${UPLOADS.bytes / 1024} KiB each); ` +
      `idle ${LOAD_SECONDS} s, then during ${backups.length} backup${backups.length === 1 ? '' : 's'} one after ` +
      `another (${backups.map((s) => `${s.toFixed(1)} s`).join(', ')}; quiet: ${quietBackupSeconds.toFixed(1)} s)`,
  )
  console.log(
    `${'call (ms)'.padEnd(28)} ${'p50'.padStart(8)} ${'p99'.padStart(8)} ${'max'.padStart(8)} ${'calls'.padStart(6)} ` +
      `${'calls/s'.padStart(7)}  refused`,
  )
  const row = (name: string, f: CallFigures) =>
    console.log(
      `${name.padEnd(28)} ${ms(f.p50)} ${ms(f.p99)} ${ms(f.max)} ${String(f.runs).padStart(6)} ` +
        `${f.perSecond.toFixed(1).padStart(7)}  ${[...f.failed].map(([status, n]) => `${n} × ${status}`).join(', ') || 'none'}`,
    )
  row('heartbeat, idle', idle.heartbeats)
  row('heartbeat, during backup', busy.heartbeats)
  row('sign-in, idle', idle.signIns)
  row('sign-in, during backup', busy.signIns)
  row('upload, idle', idle.uploads)
  row('upload, during backup', busy.uploads)
  for (const [name, a, b] of [
    ['heartbeat', idle.heartbeats, busy.heartbeats],
    ['sign-in', idle.signIns, busy.signIns],
    ['upload', idle.uploads, busy.uploads],
  ] as const) {
    const p99 = b.p99 / a.p99
    console.log(
      `  ${name} during a backup ÷ idle: p50 ${(b.p50 / a.p50).toFixed(2)}×, p99 ${p99.toFixed(2)}× ` +
        `(goal ≤ ${GOALS.loadP99OfIdle}×: ${met(p99 <= GOALS.loadP99OfIdle)})`,
    )
  }
}

// ——— output ———

const met = (ok: boolean) => (ok ? 'met' : 'missed')
const mb = (bytes: number) => `${(bytes / 1e6).toFixed(bytes < 1e8 ? 1 : 0)} MB`
const rate = (bytes: number, seconds: number) => `${(bytes / 1e6 / seconds).toFixed(1)} MB/s`
const ms = (value: number) => value.toFixed(2).padStart(8)
const cpu = (f: { nodeCpuMs: number; pgCpuMs: number }) =>
  `Node ${(f.nodeCpuMs / 1000).toFixed(1)} s, PostgreSQL ${(f.pgCpuMs / 1000).toFixed(1)} s`
const loadAverage = () => os.loadavg()[0].toFixed(2)
