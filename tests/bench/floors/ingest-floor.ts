import http from 'node:http'
import pg from 'pg'

// The ingest floor of `npm run bench`: a bare node:http server with a pg pool that answers the three
// ingest calls (heartbeat, video audit, access-log ping) with the single statement the progress service
// runs for each, on the portal's own database — no framework, no sign-in, no validation, no checks that
// the course is assigned or the video open. What is left is the least an event can cost: HTTP, JSON
// and one round trip to PostgreSQL. The user is whatever `Authorization: Bearer <user id>` names.
//
// Run with the same Node as the portal (it strips the types itself):
//   DATABASE_URL=postgres://… PORT=4000 node tests/bench/floors/ingest-floor.ts
// The statements are those of app/modules/progress/service.server.ts, with explicit casts because
// these are server-side parameters where the service inlines literals; keep them in step.

const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 10 })
const port = Number(process.env.PORT ?? 4000)

const BURST_SECONDS = 60
const MAX_SPEED = 2
const COMPLETION_SHARE = 0.9

/** Video durations, read once: the floor spends no query on what the portal looks up per call. */
const durations = new Map<string, number>()

async function duration(videoId: string) {
  let seconds = durations.get(videoId)
  if (seconds === undefined) {
    const { rows } = await pool.query<{ duration: number | null }>(
      'SELECT duration FROM content_entries WHERE id = $1',
      [videoId],
    )
    seconds = rows[0]?.duration ?? 0
    durations.set(videoId, seconds)
  }
  return seconds
}

const merged = `CAST(rpad(left(p.watched::text, $5::integer), $5::integer, '0') AS varbit) | EXCLUDED.watched`
const available = `LEAST($9::real, p.credit + GREATEST(0, extract(epoch FROM now() - p.updated_at)) * $10::real)`
const HEARTBEAT = `
  INSERT INTO video_progress AS p
         (user_id, video_id, course_id, watched, watched_seconds, last_position, completed, completed_at, credit)
  SELECT $1::uuid, $2::uuid, $3::uuid, n.bits, bit_count(n.bits), $7::integer,
         bit_count(n.bits) >= $8::integer, CASE WHEN bit_count(n.bits) >= $8::integer THEN now() END, $9::real - $6::real
    FROM (SELECT CAST($4::text AS varbit) AS bits) n
  ON CONFLICT (user_id, video_id) DO UPDATE SET
         watched = ${merged},
         watched_seconds = bit_count(${merged}),
         last_position = EXCLUDED.last_position,
         completed = p.completed OR bit_count(${merged}) >= $8::integer,
         completed_at = COALESCE(p.completed_at, CASE WHEN bit_count(${merged}) >= $8::integer THEN now() END),
         credit = ${available} - $6::real,
         updated_at = now()
   WHERE $6::real <= ${available}
  RETURNING watched_seconds, completed, last_position`

const AUDIT = `
  INSERT INTO video_audits AS a (user_id, video_id, course_id, video_duration, video_progress, last_viewed_at)
  SELECT $1::uuid, $2::uuid, $3::uuid, $4::integer, LEAST($5::integer, COALESCE(MAX(p.last_position), 0)), now()
    FROM (SELECT 1) one LEFT JOIN video_progress p ON p.user_id = $1::uuid AND p.video_id = $2::uuid
  ON CONFLICT (user_id, video_id) DO UPDATE SET
    video_duration = EXCLUDED.video_duration,
    video_progress = GREATEST(a.video_progress, EXCLUDED.video_progress),
    last_viewed_at = now()`

const PING = `
  INSERT INTO access_log_pings (user_id, page_name, course_id, video_id)
  SELECT $1::uuid, $2::text, $3::uuid, $4::uuid
   WHERE NOT EXISTS (
     SELECT 1 FROM access_log_pings
      WHERE user_id = $1::uuid AND page_name = $2::text AND recorded_at > now() - interval '30 seconds'
        AND course_id IS NOT DISTINCT FROM $3::uuid AND video_id IS NOT DISTINCT FROM $4::uuid)
  RETURNING id`

type Heartbeat = { courseId: string; videoId: string; watched: [number, number][]; position: number }
type Audit = { courseId: string; videoId: string; videoDuration: number | string; videoProgress: number | string }
type Ping = { pageName: string; courseId?: string; videoId?: string }

type Answer = { status: number; body: unknown }

async function heartbeat(userId: string, data: Heartbeat): Promise<Answer> {
  const length = await duration(data.videoId)
  const claimed = data.watched.reduce((sum, [start, end]) => sum + (end - start), 0)
  const bits = Array.from({ length }, () => '0')
  for (const [start, end] of data.watched) for (let second = start; second < end; second++) bits[second] = '1'
  const { rows } = await pool.query<{ watched_seconds: number; completed: boolean; last_position: number }>(HEARTBEAT, [
    userId,
    data.videoId,
    data.courseId,
    bits.join(''),
    length,
    claimed,
    data.position,
    Math.ceil(COMPLETION_SHARE * length),
    BURST_SECONDS,
    MAX_SPEED,
  ])
  const row = rows[0]
  if (!row) return { status: 429, body: { message: 'Over the credit.' } }
  return {
    status: 200,
    body: {
      watchedSeconds: row.watched_seconds,
      completed: row.completed,
      lastPosition: row.last_position,
      duration: length,
    },
  }
}

async function audit(userId: string, data: Audit): Promise<Answer> {
  await pool.query(AUDIT, [
    userId,
    data.videoId,
    data.courseId,
    (await duration(data.videoId)) || Math.round(Number(data.videoDuration)),
    Math.floor(Number(data.videoProgress)),
  ])
  return { status: 200, body: { message: 'Recorded.' } }
}

async function ping(userId: string, data: Ping): Promise<Answer> {
  const { rows } = await pool.query(PING, [userId, data.pageName, data.courseId ?? null, data.videoId ?? null])
  return {
    status: 200,
    body: { message: rows.length ? 'Recorded.' : 'Already recorded a moment ago.', recorded: rows.length > 0 },
  }
}

const routes: Record<string, (userId: string, data: never) => Promise<Answer>> = {
  '/api/category/videoProgress': heartbeat,
  '/api/category/videoAudit': audit,
  '/api/user/postAccessLog': ping,
}

const server = http.createServer((request, response) => {
  const chunks: Buffer[] = []
  request.on('data', (chunk: Buffer) => chunks.push(chunk))
  request.on('end', () => {
    const send = ({ status, body }: Answer) => {
      const text = JSON.stringify(body)
      response.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text) })
      response.end(text)
    }
    const route = request.method === 'POST' ? routes[request.url ?? ''] : undefined
    if (!route) return send({ status: 404, body: { message: 'Not found.' } })
    const userId = (request.headers.authorization ?? '').replace(/^Bearer /, '')
    let data: never
    try {
      data = JSON.parse(Buffer.concat(chunks).toString()) as never
    } catch {
      return send({ status: 400, body: { message: 'Not JSON.' } })
    }
    route(userId, data).then(send, (error: unknown) =>
      send({ status: 500, body: { message: error instanceof Error ? error.message : String(error) } }),
    )
  })
})

const { rows } = await pool.query<{ id: string; duration: number | null }>(
  `SELECT id, duration FROM content_entries WHERE kind = 'video'`,
)
for (const row of rows) durations.set(row.id, row.duration ?? 0)
server.listen(port, '127.0.0.1', () => process.send?.('listening'))

const stop = () => {
  server.close(() => void pool.end().then(() => process.exit(0)))
  server.closeAllConnections()
}
process.on('SIGTERM', stop)
process.on('SIGINT', stop)
process.on('disconnect', () => process.exit(0))
