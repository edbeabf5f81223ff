import pg from 'pg'
import { hashPassword } from '#app/modules/auth/password.server.ts'
import { issueToken } from '#app/modules/auth/token.server.ts'
import { groupedCode, newCertificateCode } from '#app/modules/certificates/facts.ts'
import { getSecrets } from '#app/utils/env.server.ts'
import { openEmbeddedDatabase } from '#db/embedded.ts'

// The learners, courses and videos the benches on the real `portal serve` load into its database, and the
// realistic heartbeats they send (tests/bench/run.ts, tests/bench/labs-load.ts).

/** The data set: every learner has every course assigned; each heartbeats the five videos of one course. */
export const LEARNERS = 200
export const COURSES = 20
export const VIDEOS_PER_COURSE = 5
export const VIDEO_SECONDS = 600
export const BENCH_PASSWORD = 'Bench-pass1!'

type Learner = { id: string; token: string }
export type Pair = { learner: Learner; courseId: string; videoId: string }
type DataSet = {
  courses: { id: string; videos: string[] }[]
  learners: Learner[]
  pairs: Pair[]
  /** bench1's certificate, grouped as its verify link has it */
  certificateCode: string
}

/**
 * A client of the database of the portal started with `env` (portalEnv), opened as the portal opens it;
 * from then on this process mints tokens and reads the database password as that portal does.
 */
export async function portalDatabase(env: NodeJS.ProcessEnv) {
  delete process.env.DATABASE_URL
  Object.assign(process.env, {
    DATA_DIR: env.DATA_DIR,
    EMBEDDED_PG_PORT: env.EMBEDDED_PG_PORT,
    SESSION_SECRET: env.SESSION_SECRET,
    JWT_SECRET: env.JWT_SECRET,
    BRIDGE_SECRET: env.BRIDGE_SECRET,
  })
  const database = await openEmbeddedDatabase({
    dataDir: env.DATA_DIR as string,
    port: Number(env.EMBEDDED_PG_PORT),
    password: getSecrets().databasePassword,
    mode: 'share',
  })
  const client = new pg.Client({ connectionString: database.url })
  await client.connect()
  return { client, url: database.url }
}

/**
 * 200 learners with the same password, 20 courses of 5 ten-minute videos, every course assigned to every
 * learner: set-based SQL through the portal's database, triggers on (the tallies stay right). The
 * learners' API tokens are minted with the portal's own JWT secret, as /api/user/login would issue them.
 * The learners come in the order of their user names' numbers: bench1 first.
 */
export async function loadDataSet(client: pg.Client): Promise<DataSet> {
  const started = performance.now()
  const hash = await hashPassword(BENCH_PASSWORD)
  await client.query('BEGIN')
  const { rows: courseRows } = await client.query<{ id: string }>(
    `INSERT INTO courses (title, description)
     SELECT 'Bench course ' || lpad(n::text, 2, '0'), 'A course of the bench: five videos of ten minutes.'
       FROM generate_series(1, $1::integer) n
     RETURNING id`,
    [COURSES],
  )
  const courseIds = courseRows.map((r) => r.id)
  const { rows: videoRows } = await client.query<{ id: string; course_id: string }>(
    `INSERT INTO content_entries (course_id, kind, order_id, title, description, embed_url, duration)
     SELECT c.id, 'video', v - 1, 'Video ' || v, 'A video of the bench.',
            'https://www.youtube-nocookie.com/embed/bench' || v, $3::integer
       FROM unnest($1::uuid[]) WITH ORDINALITY c (id, n) CROSS JOIN generate_series(1, $2::integer) v
      ORDER BY c.n, v
     RETURNING id, course_id`,
    [courseIds, VIDEOS_PER_COURSE, VIDEO_SECONDS],
  )
  const { rows: learnerRows } = await client.query<{ id: string; role_id: number; token_version: number }>(
    `INSERT INTO users (first_name, last_name, user_name, email, password_hash, role_id)
     SELECT 'Bench', 'Learner ' || n, 'bench' || n, 'bench' || n || '@bench.example', $2, 2
       FROM generate_series(1, $1::integer) n
      ORDER BY n
     RETURNING id, role_id, token_version`,
    [LEARNERS, hash],
  )
  await client.query(
    `INSERT INTO course_assignments (user_id, course_id)
     SELECT u, c FROM unnest($1::uuid[]) u CROSS JOIN unnest($2::uuid[]) c`,
    [learnerRows.map((r) => r.id), courseIds],
  )
  // a certificate of the first course for each learner, as the job would have given them (the credential is
  // not read by the pages measured)
  const codes = learnerRows.map(() => newCertificateCode())
  await client.query(
    `INSERT INTO certificate_keys (kid, public_jwk) VALUES ('bench', '{"kid":"bench","kty":"RSA","n":"AQAB","e":"AQAB"}')`,
  )
  await client.query(
    `INSERT INTO certificates (code, kind, user_id, course_id, title, learner_name, issuer_name, minutes, credential, key_id)
     SELECT l.code, 'course', l.id, $3, 'Bench course 01', 'Bench Learner', 'Bench Academy', 50, 'bench', 'bench'
       FROM unnest($1::uuid[], $2::text[]) AS l(id, code)`,
    [learnerRows.map((r) => r.id), codes, courseIds[0]],
  )
  await client.query('COMMIT')
  // RETURNING keeps the order of the SELECT's rows in practice; the benches need bench1 first (its pages
  // are measured) and the others in a known order, which is read back rather than assumed
  const { rows: ordered } = await client.query<{ id: string }>(
    `SELECT id FROM users WHERE user_name LIKE 'bench%' ORDER BY substr(user_name, 6)::integer`,
  )
  const learners: Learner[] = []
  for (const { id } of ordered) learners.push({ id, token: await issueToken({ id, roleId: 2, tokenVersion: 0 }) })
  const courses = courseIds.map((id) => ({
    id,
    videos: videoRows.filter((v) => v.course_id === id).map((v) => v.id),
  }))
  // request k goes to learner k mod 200, video ⌊k/200⌋ mod 5 of the learner's course: consecutive
  // requests never share a learner, and a (learner, video) comes back only every 1,000 requests
  const pairs: Pair[] = []
  for (let v = 0; v < VIDEOS_PER_COURSE; v++)
    for (const [n, learner] of learners.entries()) {
      const course = courses[n % COURSES]
      pairs.push({ learner, courseId: course.id, videoId: course.videos[v] })
    }
  console.log(
    `data set: ${LEARNERS} learners, ${COURSES} courses × ${VIDEOS_PER_COURSE} videos of ${VIDEO_SECONDS} s, ` +
      `${LEARNERS * COURSES} assignments, ${LEARNERS} tokens: ${(performance.now() - started).toFixed(0)} ms`,
  )
  const [first] = await client
    .query<{ code: string }>(
      `SELECT c.code FROM certificates c JOIN users u ON u.id = c.user_id WHERE u.user_name = 'bench1'`,
    )
    .then((r) => r.rows)
  return { courses, learners, pairs, certificateCode: groupedCode(first.code) }
}

/**
 * Each call the next request of a walk over the pairs, from the start: its headers (JSON, and `auth`'s
 * answer for the pair as a Bearer token) and its body, built for the pair and how many times the walk has
 * been through all the pairs before (`visit`).
 */
export function rotate(
  pairs: Pair[],
  body: (pair: Pair, visit: number) => object,
  auth: (pair: Pair) => string,
): () => { headers: Record<string, string>; body: string } {
  let k = 0
  return () => {
    const pair = pairs[k % pairs.length]
    const visit = Math.floor(k / pairs.length)
    k++
    return {
      headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${auth(pair)}` },
      body: JSON.stringify(body(pair, visit)),
    }
  }
}

/** Where in its video a pair's `visit`-th heartbeat starts: one second further each visit, round again near the end. */
export const second = (visit: number) => visit % (VIDEO_SECONDS - 1)

/**
 * A realistic heartbeat (POST /api/category/videoProgress): the one second played since the previous
 * heartbeat of the pair ([s, s+1), playhead at s+1, moving on through the video). The portal credits 2 s of
 * video per second of wall time per pair, up to 60 s: 1,000 pairs refill 2,000 s a second, so up to about
 * 2,000 heartbeats a second are all accepted, and the minute of credit each pair starts with covers more
 * for a while.
 */
export const heartbeat = (pair: Pair, visit: number) => ({
  courseId: pair.courseId,
  videoId: pair.videoId,
  watched: [[second(visit), second(visit) + 1]],
  position: second(visit) + 1,
})
