import { chmod, mkdtemp, rm, stat } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { performance } from 'node:perf_hooks'
import pg from 'pg'
import { QueryTypes } from 'sequelize'
import {
  accessLogFilter,
  accessLogReport,
  accessLogStatement,
  accessLogTotalStatement,
  type Statement,
} from '#app/modules/access-log/service.server.ts'
import { ROLE, SYSTEM, type Actor } from '#app/modules/auth/roles.ts'
import { dashboardFigures, dashboardStatements } from '#app/modules/dashboard/service.server.ts'
import { recordAccessLogPing, recordProgress } from '#app/modules/progress/service.server.ts'
import { resetEnvCache } from '#app/utils/env.server.ts'
import { disconnect, sequelize } from '#db/client.ts'
import { openEmbeddedDatabase } from '#db/embedded.ts'
import { migrate } from '#db/migrate.ts'
import { measureBackup } from '#tests/bench/backup.ts'
import { runPortal, timeCalls, type CallFigures } from '#tests/bench/measure.ts'
import { measureReminders } from '#tests/bench/reminders.ts'
import { printMachine } from '#tests/bench/serve.ts'
import { freePort } from '#tests/setup/global.ts'

// npm run bench:scale — the access log (its video and lab rows) and the dashboard on a big database. A throwaway embedded
// PostgreSQL is loaded with set-based SQL (generate_series, the row triggers off for the load, the
// tallies computed by INSERT … SELECT and then checked against a recount on a sample), then each query
// runs many times through the app's own pool. Printed: p50/p95/max in ms, a summary of EXPLAIN (ANALYZE,
// BUFFERS), ratios to a floor measured in the same run (SELECT 1, a primary-key lookup), and an export
// of about a million rows in a child process of its own (its peak memory is its own). Last, the ingest on
// the big tables: access-log pings and heartbeats through the progress service, one at a time and ten at
// a time, beside the same calls on a small database of the same server (the ingest floor). Then `portal
// backup` and `portal restore` of the whole database (tests/bench/backup.ts). Figures only.
//
//   BENCH_SCALE=0.1 npm run bench:scale          a tenth of everything, for a quick run (default 1)
//   npm run bench:backup                         the same database, then the backup and restore part only
//   npm run bench:reminders                      the same database with few pings, then the reminder sweep only
//   BENCH_ITERATIONS=50 npm run bench:scale       runs per query (default 200)
//   BENCH_INGEST_CALLS=500 npm run bench:scale    calls per ingest row (default 1000)
//   BENCH_SHOW_PLANS=1 npm run bench:scale        every query's whole EXPLAIN (ANALYZE, BUFFERS) too

const SCALE = Number(process.env.BENCH_SCALE ?? 1)
const ITERATIONS = Number(process.env.BENCH_ITERATIONS ?? 200)
/** `--backup-only` (npm run bench:backup): the load, then tests/bench/backup.ts; no reports, no ingest rows. */
const BACKUP_ONLY = process.argv.includes('--backup-only')
/** `--reminders-only` (npm run bench:reminders): the load with few pings, then tests/bench/reminders.ts only. */
const REMINDERS_ONLY = process.argv.includes('--reminders-only')
const LEARNERS = Math.max(100, Math.round(100_000 * SCALE))
const COURSES = 10
const VIDEOS_PER_COURSE = 10
const PINGS = REMINDERS_ONLY ? 1000 : Math.max(1000, Math.round(50_000_000 * SCALE))
const HISTORY_DAYS = 180
/** Days of viewing an export covers: about a tenth of 180 days, so about a million rows at full scale. */
const EXPORT_DAYS = 18
const INGEST_CALLS = Number(process.env.BENCH_INGEST_CALLS ?? 1000)
/** Calls in flight in the concurrent ingest rows: the app's pool (DB_POOL_MAX's default). */
const INGEST_IN_FLIGHT = 10
/** Learner × video pairs the heartbeats rotate over; each comes back every this many calls. */
const HEARTBEAT_PAIRS = 200
/** Pings sent, not measured, before the measured ones. */
const PING_WARM_UP = 50
/**
 * The ingest floor's database: this many learners, one course of ten videos, no pings or progress before;
 * enough learner × video pairs for every ping to have its own.
 */
const FLOOR_LEARNERS = Math.max(500, Math.ceil((PING_WARM_UP + 2 * INGEST_CALLS) / VIDEOS_PER_COURSE))

type Figures = { p50: number; p95: number; max: number; runs: number }

async function main() {
  if (!Number.isFinite(SCALE) || SCALE <= 0) throw new Error('BENCH_SCALE must be a positive number.')
  if (!Number.isInteger(INGEST_CALLS) || INGEST_CALLS < 1)
    throw new Error('BENCH_INGEST_CALLS must be a positive whole number.')
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'portal-bench-scale-'))
  await chmod(dataDir, 0o755)
  const password = 'bench-scale-password'
  const server = await openEmbeddedDatabase({
    dataDir,
    port: await freePort(),
    password,
    mode: 'own',
    database: 'portal_bench',
    fast: true,
  })
  process.env.DATABASE_URL = server.url
  // the ingest rows' max says how slow the slowest call was; a log line per call over 100 ms would bury the tables
  process.env.SLOW_SQL_MS ??= '1000'
  process.env.DATA_DIR = dataDir
  const admin = new pg.Client({ connectionString: server.url })
  try {
    await admin.connect()
    // room for the load's sorts and index builds; the queries measured later run with the defaults
    await admin.query(`ALTER SYSTEM SET max_wal_size = '8GB'`)
    await admin.query(`ALTER SYSTEM SET checkpoint_timeout = '30min'`)
    await admin.query('SELECT pg_reload_conf()')
    await migrate(await sequelize())
    printMachine((await admin.query<{ v: string }>('SELECT current_setting($1) AS v', ['server_version'])).rows[0].v)

    console.log(
      `scale ${SCALE}: ${LEARNERS.toLocaleString('en-US')} learners, ${COURSES} courses × ${VIDEOS_PER_COURSE} videos, ` +
        `~${(LEARNERS * COURSES * VIDEOS_PER_COURSE).toLocaleString('en-US')} viewings over ${HISTORY_DAYS} days, ` +
        `${PINGS.toLocaleString('en-US')} access-log pings, lab attempts by a fifth of the learners`,
    )
    const loadStarted = performance.now()
    await load(admin)
    console.log(`load total: ${seconds(performance.now() - loadStarted)} s\n`)
    await checkTallies(admin)
    if (REMINDERS_ONLY) return await measureReminders(admin)
    if (!BACKUP_ONLY) {
      await measure(admin, dataDir)
      // due dates on the assignments and the reminders' rows: the backup after it carries them too
      await measureReminders(admin)
      await measureIngest(admin, server.url)
      await switchDatabase(server.url)
    }
    await measureBackup({ url: server.url, dataDir, pairs: await ingestPairs(HEARTBEAT_PAIRS), scale: SCALE })
    console.log(`\nload average (1 min) at the end: ${os.loadavg()[0].toFixed(2)}`)
  } finally {
    await admin.end().catch(() => undefined)
    await disconnect()
    await server.stop()
    await rm(dataDir, { recursive: true, force: true })
  }
}

// ——— the load ———

async function step(label: string, work: () => Promise<unknown>) {
  const started = performance.now()
  await work()
  console.log(`  ${label.padEnd(58)} ${seconds(performance.now() - started).padStart(7)} s`)
}

/** Drop a big table's indexes and primary key for the load and build them again afterwards: much faster. */
async function withoutIndexes(client: pg.Client, table: string, work: () => Promise<void>) {
  const { rows } = await client.query<{ name: string; def: string; constraint: string | null; condef: string }>(
    `SELECT i.indexrelid::regclass::text AS name, pg_get_indexdef(i.indexrelid) AS def,
            c.conname AS constraint, pg_get_constraintdef(c.oid) AS condef
       FROM pg_index i LEFT JOIN pg_constraint c ON c.conindid = i.indexrelid AND c.conrelid = i.indrelid
      WHERE i.indrelid = $1::regclass`,
    [table],
  )
  for (const index of rows)
    await client.query(
      index.constraint ? `ALTER TABLE ${table} DROP CONSTRAINT ${index.constraint}` : `DROP INDEX ${index.name}`,
    )
  await work()
  await step(`${table}: ${rows.length} indexes built`, async () => {
    for (const index of rows)
      await client.query(
        index.constraint ? `ALTER TABLE ${table} ADD CONSTRAINT ${index.constraint} ${index.condef}` : index.def,
      )
  })
}

async function load(client: pg.Client) {
  const q = (text: string, values: unknown[] = []) => client.query(text, values)
  // as the superuser: row triggers (the tallies, and the foreign-key checks) are off for this session
  await q(`SET session_replication_role = replica`)
  await q(`SET maintenance_work_mem = '1GB'`)
  await q(`SET work_mem = '256MB'`)
  await q('SELECT setseed(0.42)')

  await step(`${LEARNERS.toLocaleString('en-US')} learners`, async () => {
    await q(`CREATE TEMP TABLE bench_learners (n integer PRIMARY KEY, id uuid NOT NULL)`)
    await q(`INSERT INTO bench_learners SELECT n, gen_random_uuid() FROM generate_series(1, $1) n`, [LEARNERS])
    await q(
      `INSERT INTO users (id, first_name, last_name, user_name, email, role_id, created_at, updated_at)
       SELECT id, 'Learner', 'No. ' || n, 'bench' || n, 'bench' || n || '@bench.example', 2,
              now() - interval '200 days', now() - interval '200 days'
         FROM bench_learners`,
    )
    await q(`ANALYZE bench_learners`)
  })

  await step(
    `${COURSES} courses, ${COURSES * VIDEOS_PER_COURSE} videos (one hidden), assignments, programs`,
    async () => {
      await q(`CREATE TEMP TABLE bench_courses (n integer PRIMARY KEY, id uuid NOT NULL)`)
      await q(`INSERT INTO bench_courses SELECT n, gen_random_uuid() FROM generate_series(1, $1) n`, [COURSES])
      await q(`INSERT INTO courses (id, title, description) SELECT id, 'Bench course ' || n, '' FROM bench_courses`)
      await q(
        `INSERT INTO content_entries (course_id, kind, order_id, title, embed_url, duration, visibility)
       SELECT c.id, 'video', v, 'Course ' || c.n || ' video ' || v, 'https://www.youtube-nocookie.com/embed/bench',
              300 + 60 * v, NOT (c.n = $1 AND v = $2)
         FROM bench_courses c CROSS JOIN generate_series(1, $2) v`,
        [COURSES, VIDEOS_PER_COURSE],
      )
      // each learner has six courses of the ten assigned
      await q(
        `INSERT INTO course_assignments (user_id, course_id, created_at)
       SELECT l.id, c.id, now() - interval '190 days' FROM bench_learners l CROSS JOIN bench_courses c
        WHERE (l.n + c.n) % 10 >= 4`,
      )
      // two programs sharing course 3 (courses 1-3 and 3-5), given to a third and a quarter of the learners: some
      // then have a course through a program only, some also directly, some through both programs
      await q(`CREATE TEMP TABLE bench_programs (n integer PRIMARY KEY, id uuid NOT NULL)`)
      await q(`INSERT INTO bench_programs SELECT n, gen_random_uuid() FROM generate_series(1, 2) n`)
      await q(`INSERT INTO programs (id, title) SELECT id, 'Bench program ' || n FROM bench_programs`)
      await q(
        `INSERT INTO program_courses (program_id, course_id, position)
       SELECT p.id, c.id, c.n FROM bench_programs p JOIN bench_courses c ON c.n BETWEEN 2 * p.n - 1 AND 2 * p.n + 1`,
      )
      await q(
        `INSERT INTO program_assignments (user_id, program_id, created_at)
       SELECT l.id, p.id, now() - interval '190 days' FROM bench_learners l JOIN bench_programs p
           ON l.n % (p.n + 2) = 0`,
      )
    },
  )

  await withoutIndexes(client, 'video_progress', () =>
    step('video_progress: every learner × video, a share completed', () =>
      // learners numbered by five complete what they watch; the others each video by chance, half of them
      q(
        `INSERT INTO video_progress
           (user_id, video_id, course_id, watched, watched_seconds, last_position, completed, completed_at,
            created_at, updated_at)
         SELECT l.id, e.id, e.course_id, (repeat('1', w) || repeat('0', e.duration - w))::varbit, w, w,
                w >= ceil(0.9 * e.duration), CASE WHEN w >= ceil(0.9 * e.duration) THEN at END, at, at
           FROM bench_learners l
           CROSS JOIN content_entries e
           CROSS JOIN LATERAL (
             SELECT CASE WHEN l.n % 5 = 0 OR random() < 0.5 THEN e.duration
                         ELSE floor(random() * 0.9 * e.duration)::integer END AS w,
                    now() - random() * interval '${HISTORY_DAYS} days' AS at
              WHERE e.id IS NOT NULL) r
          WHERE e.kind = 'video'`,
      ),
    ),
  )

  await withoutIndexes(client, 'video_viewings', () =>
    step('video_viewings from video_progress', () =>
      q(
        `INSERT INTO video_viewings (user_id, video_id, course_id, last_viewed_at, furthest, seen_duration)
         SELECT user_id, video_id, course_id, updated_at,
                GREATEST(last_position, length(rtrim(watched::text, '0')), 0), NULLIF(length(watched), 0)
           FROM video_progress`,
      ),
    ),
  )

  await withoutIndexes(client, 'access_log_pings', () =>
    step(`${PINGS.toLocaleString('en-US')} access_log_pings`, async () => {
      await q(
        `INSERT INTO access_log_pings (id, user_id, page_name, recorded_at, course_id)
         OVERRIDING SYSTEM VALUE
         SELECT g, l.id, (ARRAY['My Courses', 'Course', 'Video', 'Profile'])[1 + g % 4],
                now() - random() * interval '${HISTORY_DAYS} days',
                CASE WHEN g % 4 IN (1, 2) THEN c.id END
           FROM generate_series(1, $1::bigint) g
           JOIN bench_learners l ON l.n = 1 + (g * 7919) % $2
           JOIN bench_courses c ON c.n = 1 + g % $3`,
        [PINGS, LEARNERS, COURSES],
      )
      await q(`SELECT setval(pg_get_serial_sequence('access_log_pings', 'id'), $1)`, [PINGS])
    }),
  )

  await step(
    'labs: one per course of five exercises; a fifth of the learners attempt their courses’ labs',
    async () => {
      await q(
        `INSERT INTO labs (course_id, title, dataset_name, dataset_sql) SELECT id, 'Bench lab ' || n, 'data.sql', ''
         FROM bench_courses`,
      )
      await q(
        `INSERT INTO lab_exercises (lab_id, key, position, title, prompt, solution, check_kind, order_rule, column_rule, allow)
       SELECT l.id, 'e' || x, x, 'Exercise ' || x, 'A prompt.', 'SELECT 1', 'result', 'auto', 'names', '{select}'
         FROM labs l CROSS JOIN generate_series(1, 5) x`,
      )
      // one to three attempts per exercise of each assigned course, the last one passing half the time
      await q(
        `INSERT INTO lab_attempts (exercise_id, user_id, sql, passed, message, duration_ms, created_at)
       SELECT x.id, a.user_id, 'SELECT 1', t = tries AND random() < 0.5, '', 5,
              last_at - (tries - t) * interval '10 minutes'
         FROM bench_learners bl
         JOIN course_assignments a ON a.user_id = bl.id
         JOIN labs l ON l.course_id = a.course_id
         JOIN lab_exercises x ON x.lab_id = l.id
         CROSS JOIN LATERAL (SELECT 1 + floor(random() * 3)::integer AS tries,
                                    now() - random() * interval '${HISTORY_DAYS} days' AS last_at
                              WHERE x.id IS NOT NULL) r
         CROSS JOIN LATERAL generate_series(1, r.tries) t
        WHERE bl.n % 5 = 0`,
      )
      await q(
        `INSERT INTO lab_exercise_results (user_id, exercise_id, lab_id, course_id, attempts, passed, last_attempt_at)
       SELECT a.user_id, a.exercise_id, x.lab_id, l.course_id, count(*), bool_or(a.passed), max(a.created_at)
         FROM lab_attempts a JOIN lab_exercises x ON x.id = a.exercise_id JOIN labs l ON l.id = x.lab_id
        GROUP BY 1, 2, 3, 4`,
      )
      await q(
        `INSERT INTO lab_result_day_counts (course_id, day, results)
       SELECT course_id, utc_day(last_attempt_at), count(*) FROM lab_exercise_results GROUP BY 1, 2`,
      )
      // each attempter's passed exercises per lab, as migration 0019 counted what was there before it
      await q('SELECT recount_lab(id) FROM labs')
    },
  )

  await step('tallies: viewing_day_counts, video_view_days', async () => {
    await q(
      `INSERT INTO viewing_day_counts (course_id, day, viewings)
       SELECT course_id, utc_day(last_viewed_at), count(*) FROM video_viewings GROUP BY 1, 2`,
    )
    await q(
      `INSERT INTO video_view_days (video_id, day, course_id, views)
       SELECT video_id, utc_day(last_viewed_at), course_id, count(*) FROM video_viewings GROUP BY 1, 2, 3`,
    )
  })
  await step('tallies: learner_activity (viewings and pings)', () =>
    q(
      `INSERT INTO learner_activity (user_id, last_active_on)
       SELECT user_id, max(day) FROM (
         SELECT user_id, max(utc_day(last_viewed_at)) AS day FROM video_viewings GROUP BY user_id
         UNION ALL
         SELECT user_id, max(utc_day(recorded_at)) FROM access_log_pings GROUP BY user_id) a
       GROUP BY user_id`,
    ),
  )
  await step('tallies: course_completion_tallies and _counts', async () => {
    // a learner has a course directly or through a program, once (migration 0013)
    await q(
      `INSERT INTO course_completion_tallies (user_id, course_id, completed_videos, assigned)
       SELECT coalesce(d.user_id, a.user_id), coalesce(d.course_id, a.course_id), coalesce(d.videos, 0),
              a.user_id IS NOT NULL
         FROM (SELECT p.user_id, p.course_id, count(*) AS videos FROM video_progress p
                 JOIN content_entries e ON e.id = p.video_id AND e.kind = 'video' AND e.visibility
                WHERE p.completed GROUP BY 1, 2) d
         FULL JOIN (SELECT user_id, course_id FROM course_assignments
                    UNION
                    SELECT pa.user_id, pc.course_id FROM program_assignments pa
                      JOIN program_courses pc ON pc.program_id = pa.program_id) a
           ON a.user_id = d.user_id AND a.course_id = d.course_id`,
    )
    // the labs a learner has completed count towards the course too (migration 0019)
    await q(
      `INSERT INTO course_completion_tallies AS t (user_id, course_id, completed_labs)
       SELECT p.user_id, l.course_id, count(*)
         FROM lab_progress p JOIN labs l ON l.id = p.lab_id AND l.visibility
        WHERE p.completed
        GROUP BY p.user_id, l.course_id
       ON CONFLICT (user_id, course_id) DO UPDATE SET completed_labs = EXCLUDED.completed_labs`,
    )
    await q(`ANALYZE course_completion_tallies`)
    await q('SELECT recount_course_completion(id) FROM courses')
  })
  await q(`SET session_replication_role = DEFAULT`)
  await step('VACUUM ANALYZE', () => q('VACUUM ANALYZE'))
  const { rows } = await q(
    `SELECT relname, reltuples::bigint AS rows FROM pg_class
      WHERE relname IN ('video_viewings', 'video_progress', 'access_log_pings', 'course_assignments',
                        'program_assignments', 'learner_activity', 'video_view_days', 'course_completion_tallies',
                        'course_completion_counts', 'lab_attempts', 'lab_exercise_results') ORDER BY relname`,
  )
  console.log(
    `  rows (planner's count): ${rows.map((r) => `${r.relname} ${Number(r.rows).toLocaleString('en-US')}`).join(', ')}`,
  )
  const size = await q(`SELECT pg_size_pretty(pg_database_size(current_database())) AS size`)
  console.log(`  database size: ${size.rows[0].size}`)
}

/** The tallies written by the load must be what the triggers would have kept: a recount on a sample. */
async function checkTallies(client: pg.Client) {
  const checks: [string, string][] = [
    [
      'viewing_day_counts',
      `SELECT count(*) FILTER (WHERE t.viewings <> (SELECT count(*) FROM video_viewings v
                WHERE v.course_id = t.course_id AND utc_day(v.last_viewed_at) = t.day
                  AND v.last_viewed_at >= t.day::timestamp AT TIME ZONE 'UTC'
                  AND v.last_viewed_at < (t.day + 1)::timestamp AT TIME ZONE 'UTC')) AS wrong, count(*) AS checked
         FROM (SELECT * FROM viewing_day_counts ORDER BY random() LIMIT 20) t`,
    ],
    [
      'video_view_days',
      `SELECT count(*) FILTER (WHERE t.views <> (SELECT count(*) FROM video_viewings v
                WHERE v.video_id = t.video_id AND v.course_id = t.course_id
                  AND v.last_viewed_at >= t.day::timestamp AT TIME ZONE 'UTC'
                  AND v.last_viewed_at < (t.day + 1)::timestamp AT TIME ZONE 'UTC')) AS wrong, count(*) AS checked
         FROM (SELECT * FROM video_view_days ORDER BY random() LIMIT 20) t`,
    ],
    [
      'learner_activity',
      `SELECT count(*) FILTER (WHERE t.last_active_on IS DISTINCT FROM GREATEST(
                (SELECT max(utc_day(last_viewed_at)) FROM video_viewings v WHERE v.user_id = t.user_id),
                (SELECT utc_day(max(recorded_at)) FROM access_log_pings p WHERE p.user_id = t.user_id))) AS wrong,
              count(*) AS checked
         FROM (SELECT * FROM learner_activity ORDER BY random() LIMIT 200) t`,
    ],
    [
      'course_completion_tallies',
      `SELECT count(*) FILTER (WHERE t.completed_videos <> (SELECT count(*) FROM video_progress p
                JOIN content_entries e ON e.id = p.video_id AND e.kind = 'video' AND e.visibility
               WHERE p.user_id = t.user_id AND p.course_id = t.course_id AND p.completed)) AS wrong,
              count(*) AS checked
         FROM (SELECT * FROM course_completion_tallies ORDER BY random() LIMIT 200) t`,
    ],
    [
      'course_completion_tallies assigned',
      `SELECT count(*) FILTER (WHERE t.assigned <> course_has_learner(t.user_id, t.course_id)) AS wrong,
              count(*) AS checked
         FROM (SELECT * FROM course_completion_tallies ORDER BY random() LIMIT 200) t`,
    ],
    [
      'course_completion_counts',
      // course 3 is in both programs; the others are drawn at random
      `WITH holders AS (
         SELECT user_id, course_id FROM course_assignments
         UNION
         SELECT pa.user_id, pc.course_id FROM program_assignments pa
           JOIN program_courses pc ON pc.program_id = pa.program_id)
       SELECT count(*) FILTER (WHERE k.assigned <> (SELECT count(*) FROM holders a WHERE a.course_id = k.course_id)
                 OR k.completed <> (SELECT count(*) FROM holders a
                     WHERE a.course_id = k.course_id
                       AND course_done(
                             (SELECT count(*) FROM video_progress p
                                JOIN content_entries e ON e.id = p.video_id AND e.kind = 'video' AND e.visibility
                               WHERE p.user_id = a.user_id AND p.course_id = a.course_id AND p.completed)::integer,
                             -- the visible labs of which the learner has passed every exercise
                             (SELECT count(*) FROM labs l
                               WHERE l.course_id = a.course_id AND l.visibility
                                 AND EXISTS (SELECT 1 FROM lab_exercises x WHERE x.lab_id = l.id)
                                 AND NOT EXISTS (SELECT 1 FROM lab_exercises x WHERE x.lab_id = l.id
                                       AND NOT EXISTS (SELECT 1 FROM lab_attempts t
                                             WHERE t.exercise_id = x.id AND t.user_id = a.user_id AND t.passed)))::integer,
                             course_visible_videos(k.course_id), course_visible_labs(k.course_id)))) AS wrong,
              count(*) AS checked
         FROM (SELECT * FROM course_completion_counts
                WHERE course_id = (SELECT id FROM courses WHERE title = 'Bench course 3')
                   OR course_id IN (SELECT course_id FROM course_completion_counts ORDER BY random() LIMIT 2)) k`,
    ],
    [
      'video_viewings furthest, seen_duration',
      `SELECT count(*) FILTER (WHERE v.furthest <> GREATEST(p.last_position, length(rtrim(p.watched::text, '0')), a.video_progress, 0)
                 OR v.seen_duration IS DISTINCT FROM COALESCE(a.video_duration, NULLIF(length(p.watched), 0))) AS wrong,
              count(*) AS checked
         FROM (SELECT * FROM video_viewings TABLESAMPLE SYSTEM (0.1) LIMIT 200) v
         LEFT JOIN video_progress p ON p.user_id = v.user_id AND p.video_id = v.video_id
         LEFT JOIN video_audits a ON a.user_id = v.user_id AND a.video_id = v.video_id`,
    ],
    [
      'lab_exercise_results',
      `SELECT count(*) FILTER (WHERE (r.attempts, r.passed, r.last_attempt_at)
                IS DISTINCT FROM (c.attempts, c.passed, c.last_at)) AS wrong, count(*) AS checked
         FROM (SELECT * FROM lab_exercise_results ORDER BY random() LIMIT 200) r
         CROSS JOIN LATERAL (SELECT count(*)::integer AS attempts, bool_or(a.passed) AS passed,
                                    max(a.created_at) AS last_at
                               FROM lab_attempts a WHERE a.user_id = r.user_id AND a.exercise_id = r.exercise_id) c`,
    ],
    [
      'lab_result_day_counts',
      `SELECT count(*) FILTER (WHERE t.results <> (SELECT count(*) FROM lab_exercise_results r
                WHERE r.course_id = t.course_id AND utc_day(r.last_attempt_at) = t.day)) AS wrong, count(*) AS checked
         FROM (SELECT * FROM lab_result_day_counts ORDER BY random() LIMIT 20) t`,
    ],
    [
      'video_viewings = video_progress',
      `SELECT (SELECT count(*) FROM video_viewings) - (SELECT count(*) FROM video_progress) AS wrong, 1 AS checked`,
    ],
  ]
  const failed: string[] = []
  for (const [name, text] of checks) {
    const { rows } = await client.query<{ wrong: string; checked: string }>(text)
    const wrong = Number(rows[0].wrong)
    console.log(`  check ${name.padEnd(34)} ${rows[0].checked} sampled, ${wrong} differ from a recount`)
    if (wrong !== 0) failed.push(name)
  }
  if (failed.length) throw new Error(`The loaded tallies differ from a recount: ${failed.join(', ')}`)
  console.log('')
}

// ——— the measurements ———

async function measure(client: pg.Client, dataDir: string) {
  const sql = await sequelize()
  const run = ({ text, values }: Statement) => sql.query(text, { bind: values, type: QueryTypes.SELECT })
  const [{ today, start }] = await sql.query<{ today: string; start: string }>(
    `SELECT to_char(utc_day(now()), 'YYYY-MM-DD') AS today, to_char(utc_day(now()) - 29, 'YYYY-MM-DD') AS start`,
    { type: QueryTypes.SELECT },
  )
  const courses = (await client.query<{ id: string }>('SELECT id FROM courses ORDER BY title LIMIT 5')).rows.map(
    (r) => r.id,
  )
  const learnerIds = (await client.query<{ id: string }>('SELECT id FROM users ORDER BY random() LIMIT 1000')).rows.map(
    (r) => r.id,
  )
  let next = 0
  const floorSelect = await time(() => sql.query('SELECT 1', { type: QueryTypes.SELECT }))
  const floorKey = await time(() =>
    sql.query('SELECT id, email FROM users WHERE id = $1', {
      bind: [learnerIds[next++ % learnerIds.length]],
      type: QueryTypes.SELECT,
    }),
  )
  console.log(`${ITERATIONS} runs each through the app's pool; ratios are p95 against SELECT 1's p95`)
  const header = `${'query'.padEnd(52)} ${'p50'.padStart(8)} ${'p95'.padStart(8)} ${'max'.padStart(8)} ${'×floor'.padStart(7)}`
  console.log(header)
  const print = (name: string, f: Figures) =>
    console.log(
      `${name.padEnd(52)} ${ms(f.p50)} ${ms(f.p95)} ${ms(f.max)} ${(f.p95 / floorSelect.p95).toFixed(1).padStart(7)}`,
    )
  print('floor: SELECT 1', floorSelect)
  print('floor: primary-key lookup (users)', floorKey)

  const plans: [string, Statement][] = []
  // as the page asks: the video and the lab rows, merged
  const reports: [string, unknown][] = [
    [
      `access log: 30 days × 5 courses, page 1 (7) + total`,
      { startDate: start, endDate: today, courses, includeLabs: true },
    ],
    ['access log: all courses, all dates, page 1 (7) + total', { includeLabs: true }],
  ]
  for (const [name, input] of reports) {
    print(name, await time(() => accessLogReport(SYSTEM, input, { offset: 0, limit: 7 })))
    const filter = accessLogFilter(SYSTEM, input)
    plans.push([
      `${name.split(',')[0]} ${name.includes('5 courses') ? '(5 courses)' : '(all)'} page`,
      accessLogStatement(filter, { offset: 0, limit: 7 }),
    ])
    plans.push([
      `${name.split(',')[0]} ${name.includes('5 courses') ? '(5 courses)' : '(all)'} total`,
      accessLogTotalStatement(filter),
    ])
  }
  const statements = dashboardStatements(null)
  for (const [name, statement] of Object.entries(statements)) {
    print(`dashboard: ${name}`, await time(() => run(statement)))
    plans.push([`dashboard: ${name}`, statement])
  }
  print('dashboard: the whole page’s figures (5 at once)', await time(() => dashboardFigures(SYSTEM)))

  const [{ exportStart }] = await sql.query<{ exportStart: string }>(
    `SELECT to_char(utc_day(now()) - ${EXPORT_DAYS - 1}, 'YYYY-MM-DD') AS "exportStart"`,
    { type: QueryTypes.SELECT },
  )
  const exportInput = { startDate: exportStart, endDate: today, includeLabs: true }
  plans.push([`export: ${EXPORT_DAYS} days, all courses`, accessLogStatement(accessLogFilter(SYSTEM, exportInput))])

  console.log('\nEXPLAIN (ANALYZE, BUFFERS): top node, execution time, shared buffers hit/read')
  for (const [name, { text, values }] of plans) {
    const [row] = await sql.query<{ 'QUERY PLAN': ExplainRoot[] }>(`EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) ${text}`, {
      bind: values,
      type: QueryTypes.SELECT,
    })
    if (process.env.BENCH_SHOW_PLANS) {
      const lines = await sql.query<{ 'QUERY PLAN': string }>(`EXPLAIN (ANALYZE, BUFFERS) ${text}`, {
        bind: values,
        type: QueryTypes.SELECT,
      })
      console.log(lines.map((l) => `      ${l['QUERY PLAN']}`).join('\n'))
    }
    const root = row['QUERY PLAN'][0]
    const top = root.Plan
    const node = `${top['Node Type']}${top['Relation Name'] ? ` on ${top['Relation Name']}` : ''}`
    console.log(
      `  ${name.padEnd(44)} ${node.padEnd(22)} ${root['Execution Time'].toFixed(2).padStart(9)} ms  ` +
        `hit ${top['Shared Hit Blocks']} read ${top['Shared Read Blocks']}`,
    )
  }

  // the export: about a million rows (all courses, the last EXPORT_DAYS days), by the real CLI command
  const target = path.join(dataDir, 'export.csv')
  const result = await exportByCli(['--from', exportStart, '--to', today, '--out', target, '--json'])
  const bytes = (await stat(target)).size
  console.log(
    `\nportal export access-log, ${EXPORT_DAYS} days, all courses, to a CSV file: ${result.rows.toLocaleString('en-US')} rows, ` +
      `${(bytes / 1e6).toFixed(0)} MB, ${result.seconds.toFixed(1)} s including start-up, ` +
      `${Math.round(result.rows / result.seconds).toLocaleString('en-US')} rows/s, peak RSS ${(result.peakKb / 1024).toFixed(0)} MB`,
  )
}

type ExplainRoot = {
  Plan: { 'Node Type': string; 'Relation Name'?: string; 'Shared Hit Blocks': number; 'Shared Read Blocks': number }
  'Execution Time': number
}

/** Warm up, then time ITERATIONS runs one after another. */
async function time(work: () => Promise<unknown>): Promise<Figures> {
  for (let i = 0; i < Math.min(10, ITERATIONS); i++) await work()
  const times: number[] = []
  for (let i = 0; i < ITERATIONS; i++) {
    const started = performance.now()
    await work()
    times.push(performance.now() - started)
  }
  times.sort((a, b) => a - b)
  const at = (share: number) => times[Math.min(times.length - 1, Math.ceil(share * times.length) - 1)]
  return { p50: at(0.5), p95: at(0.95), max: times[times.length - 1], runs: times.length }
}

// ——— the ingest ———

type Pair = { userId: string; courseId: string; videoId: string }
type IngestFigures = CallFigures
type IngestRow = { name: string; inFlight: number; big: IngestFigures; floor: IngestFigures }

/**
 * The two calls a learner's open page and playing video make, through the progress service as POST
 * /api/user/postAccessLog and POST /api/category/videoProgress run them, first on the big database and
 * then on a small one of the same server: the floor, where the same statements find tables of a few
 * thousand rows. Only the tables' size differs between the two.
 */
async function measureIngest(client: pg.Client, bigUrl: string) {
  const pingsSize = await client.query<{ table: string; indexes: string }>(
    `SELECT pg_size_pretty(pg_table_size('access_log_pings')) AS table,
            pg_size_pretty(pg_indexes_size('access_log_pings')) AS indexes`,
  )
  const big = await ingestRuns()

  await client.query('CREATE DATABASE portal_bench_floor')
  const floorUrl = new URL(bigUrl)
  floorUrl.pathname = '/portal_bench_floor'
  await switchDatabase(floorUrl.toString())
  await migrate(await sequelize())
  await loadIngestFloor()
  const floor = await ingestRuns()

  console.log(
    `\ningest through the progress service, ${INGEST_CALLS} calls per row after a warm-up, one at a time and ` +
      `${INGEST_IN_FLIGHT} at a time (the app's pool);\n` +
      `big: access_log_pings ${pingsSize.rows[0].table} + ${pingsSize.rows[0].indexes} of indexes; ` +
      `floor: the same calls on a second database of the same server with ${FLOOR_LEARNERS} learners, ` +
      `one course of ${VIDEOS_PER_COURSE} videos, no pings or progress before the warm-up`,
  )
  const rows: IngestRow[] = [
    { name: 'access-log ping (Video)', inFlight: 1, big: big.pings[0], floor: floor.pings[0] },
    { name: 'access-log ping (Video)', inFlight: INGEST_IN_FLIGHT, big: big.pings[1], floor: floor.pings[1] },
    { name: 'heartbeat (1 s watched)', inFlight: 1, big: big.heartbeats[0], floor: floor.heartbeats[0] },
    { name: 'heartbeat (1 s watched)', inFlight: INGEST_IN_FLIGHT, big: big.heartbeats[1], floor: floor.heartbeats[1] },
  ]
  console.log(
    `${'call (ms)'.padEnd(24)} ${'in flight'.padStart(9)} ${'p50'.padStart(7)} ${'p95'.padStart(7)} ${'max'.padStart(7)} ` +
      `${'calls/s'.padStart(7)}  ${'floor p50'.padStart(9)} ${'p95'.padStart(7)} ${'max'.padStart(7)} ` +
      `${'calls/s'.padStart(7)}  ${'p95 ×floor'.padStart(10)}`,
  )
  const f = (value: number) => value.toFixed(2).padStart(7)
  for (const { name, inFlight, big: b, floor: l } of rows)
    console.log(
      `${name.padEnd(24)} ${String(inFlight).padStart(9)} ${f(b.p50)} ${f(b.p95)} ${f(b.max)} ` +
        `${String(Math.round(b.perSecond)).padStart(7)}  ${f(l.p50).padStart(9)} ${f(l.p95)} ${f(l.max)} ` +
        `${String(Math.round(l.perSecond)).padStart(7)}  ${(b.p95 / l.p95).toFixed(1).padStart(10)}`,
    )
  for (const [where, figures] of [
    ['big', big],
    ['floor', floor],
  ] as const) {
    const failed = [...figures.pings, ...figures.heartbeats].flatMap((r) => [...r.failed])
    console.log(
      `${where}: pings recorded ${figures.recorded} of ${2 * INGEST_CALLS}` +
        (failed.length ? `; refused: ${failed.map(([status, n]) => `${n} × ${status}`).join(', ')}` : '; none refused'),
    )
  }
}

/** The app's pool on another database of the server from now on. */
async function switchDatabase(url: string) {
  await disconnect()
  process.env.DATABASE_URL = url
  resetEnvCache()
}

/** Pings on distinct learner × video pairs (so none is folded into an earlier one), then heartbeats. */
async function ingestRuns() {
  const pingPairs = await ingestPairs(PING_WARM_UP + 2 * INGEST_CALLS)
  let recorded = 0
  const ping = (pair: Pair) => async () => {
    const answer = await recordAccessLogPing(learner(pair), {
      pageName: 'Video',
      recordedDate: new Date().toISOString(),
      courseId: pair.courseId,
      videoId: pair.videoId,
    })
    if (answer.recorded) recorded++
  }
  await timeCalls(pingPairs.slice(0, PING_WARM_UP).map(ping), 1)
  recorded = 0
  const pings = [
    await timeCalls(pingPairs.slice(PING_WARM_UP, PING_WARM_UP + INGEST_CALLS).map(ping), 1),
    await timeCalls(pingPairs.slice(PING_WARM_UP + INGEST_CALLS).map(ping), INGEST_IN_FLIGHT),
  ]

  // each pair reports second r of the video in round r: one second played since its last heartbeat, well
  // within the credit (60 s, refilled at 2 s per second); round 0 is the warm-up, which on the floor makes
  // the rows the measured heartbeats then update, as they update existing rows on the big database
  const heartbeatPairs = await ingestPairs(HEARTBEAT_PAIRS)
  const heartbeat = (call: number) => {
    const pair = heartbeatPairs[call % HEARTBEAT_PAIRS]
    const second = Math.floor(call / HEARTBEAT_PAIRS)
    return () =>
      recordProgress(learner(pair), {
        courseId: pair.courseId,
        videoId: pair.videoId,
        watched: [[second, second + 1]],
        position: second + 1,
      })
  }
  const calls = (from: number, count: number) => Array.from({ length: count }, (_, i) => heartbeat(from + i))
  await timeCalls(calls(0, HEARTBEAT_PAIRS), 1)
  const heartbeats = [
    await timeCalls(calls(HEARTBEAT_PAIRS, INGEST_CALLS), 1),
    await timeCalls(calls(HEARTBEAT_PAIRS + INGEST_CALLS, INGEST_CALLS), INGEST_IN_FLIGHT),
  ]
  return { pings, heartbeats, recorded }
}

const learner = (pair: Pair): Actor => ({ id: pair.userId, roleId: ROLE.learner })

/** Distinct learner × visible video pairs of a course assigned to the learner, drawn at random. */
async function ingestPairs(count: number): Promise<Pair[]> {
  const pairs = await (
    await sequelize()
  ).query<Pair>(
    `SELECT a.user_id AS "userId", a.course_id AS "courseId", e.id AS "videoId"
       FROM course_assignments a JOIN content_entries e ON e.course_id = a.course_id AND e.kind = 'video' AND e.visibility
      ORDER BY random() LIMIT :count`,
    { replacements: { count }, type: QueryTypes.SELECT },
  )
  if (pairs.length < count) throw new Error(`Only ${pairs.length} learner × video pairs for ${count} calls.`)
  return pairs
}

/** The floor's data: learners with one course of ten videos each, as the big database's courses are. */
async function loadIngestFloor() {
  const sql = await sequelize()
  await sql.query(
    `INSERT INTO users (first_name, last_name, user_name, email, role_id)
     SELECT 'Learner', 'No. ' || n, 'floor' || n, 'floor' || n || '@bench.example', :learner
       FROM generate_series(1, :learners) n`,
    { replacements: { learner: ROLE.learner, learners: FLOOR_LEARNERS } },
  )
  await sql.query(`INSERT INTO courses (title, description) VALUES ('Floor course', '')`)
  await sql.query(
    `INSERT INTO content_entries (course_id, kind, order_id, title, embed_url, duration, visibility)
     SELECT c.id, 'video', v, 'Floor video ' || v, 'https://www.youtube-nocookie.com/embed/bench', 300 + 60 * v, true
       FROM courses c CROSS JOIN generate_series(1, :videos) v`,
    { replacements: { videos: VIDEOS_PER_COURSE } },
  )
  await sql.query(
    `INSERT INTO course_assignments (user_id, course_id) SELECT u.id, c.id FROM users u CROSS JOIN courses c
      WHERE u.role_id = :learner`,
    { replacements: { learner: ROLE.learner } },
  )
  await sql.query('ANALYZE')
}

const ms = (value: number) => value.toFixed(2).padStart(8)
const seconds = (millis: number) => (millis / 1000).toFixed(1)

/** `portal export access-log` in a child process, as an operator runs it, with its peak RSS. */
async function exportByCli(args: string[]) {
  const { stdout, seconds, peakKb } = await runPortal(['export', 'access-log', ...args])
  const { rows } = JSON.parse(stdout.trim().split('\n').at(-1) ?? '{}') as { rows: number }
  return { rows, seconds, peakKb }
}

// last, so that every constant above is initialised before it runs
await main()
