import { query, sql } from '#db/client.ts'
import { can, requireOwnPermission, requirePermission } from '../auth/permissions.ts'
import { type Actor } from '../auth/roles.ts'
import { ASSIGNED_COURSE_IDS, canOpenCourse } from '../courses/access.server.ts'
import { forbidden, invalid, notFound, ServiceError } from '../errors.ts'
import { lockMessage, UNFINISHED_PREREQUISITES_SQL } from './rules.server.ts'
import {
  AccessLogPingSchema,
  VideoAuditSchema,
  VideoProgressSchema,
  VideosProgressQuerySchema,
  type AccessLogPingInput,
  type VideoAuditInput,
  type VideoProgressInput,
} from './schema.ts'

// What a learner really watched (docs/product.md#progress, ADR 004). Each video's progress is one bit per second;
// a heartbeat ORs in the seconds played since the last one, in a single INSERT … ON CONFLICT, so two
// tabs playing at once never lose each other's seconds and seeking ahead adds nothing.

/** A video is complete when this share of its seconds has been played. */
const COMPLETION_SHARE = 0.9
/** Credit refills at this many seconds of video per second of wall time (the players' top speed)… */
const MAX_SPEED = 2
/** …and holds at most this many; one heartbeat claims at most this many too. */
const BURST_SECONDS = 60

function requireLearner(actor: Actor): string {
  return requireOwnPermission(actor, 'record:progress:own')
}

type Watchability = { assigned: boolean; found: boolean; locked: string[] | null }

/** The refusal of a video the learner may not watch now, in the order the checks are made. */
function refuseUnwatchable(row: Watchability) {
  if (!row.assigned) throw forbidden('This course is not assigned to you.')
  if (!row.found) throw notFound('Video not found in this course.')
  if (row.locked?.length) throw forbidden(lockMessage(row.locked))
}

/**
 * Whether a learner may watch a video now, as columns: assigned, found, locked (the titles of the
 * unfinished prerequisites), and its duration (null when the admin left it empty) and the length of the
 * learner's bitmap for it (null when none). Each statement that records viewing (heartbeat, audit, video
 * ping) selects these, writes only when they pass, and its answer says which check refused.
 */
const WATCHABILITY = `
  EXISTS (SELECT 1 FROM (${ASSIGNED_COURSE_IDS}) a WHERE a.course_id = :courseId) AS assigned,
  v.id IS NOT NULL AS found,
  CASE WHEN v.duration > 0 THEN v.duration END AS duration,
  (SELECT array_agg(u.title ORDER BY u.order_id)
     FROM (${UNFINISHED_PREREQUISITES_SQL}) u WHERE u.video_id = :videoId) AS locked,
  (SELECT NULLIF(length(watched), 0) FROM video_progress WHERE user_id = :userId AND video_id = :videoId) AS recorded
  FROM (SELECT 1) one
  LEFT JOIN content_entries v
    ON v.id = :videoId AND v.course_id = :courseId AND v.kind = 'video' AND v.visibility`

type ProgressAnswer = { watchedSeconds: number; completed: boolean; lastPosition: number; duration: number }

/**
 * POST /api/category/videoProgress: the seconds played since the previous heartbeat, and the playhead.
 *
 * Honest counting: the seconds are ORed into the per-second bitmap (each counts once; what was skipped
 * never counts), and each heartbeat spends a credit of seconds that refills with wall-clock time at 2×
 * speed and holds at most BURST_SECONDS, so no sequence of calls gets ahead of real viewing. A heartbeat
 * over its credit records nothing and answers 429: the player keeps the seconds and sends them later.
 */
export async function recordProgress(actor: Actor, input: VideoProgressInput): Promise<ProgressAnswer> {
  const userId = requireLearner(actor)
  const data = VideoProgressSchema.parse(input)
  const claimed = data.watched.reduce((sum, [start, end]) => sum + (end - start), 0)
  if (claimed > BURST_SECONDS) throw tooMuch()
  // the seconds played, as bits up to the furthest one; the statement pads them to the video's length
  const reach = Math.max(0, ...data.watched.map(([, end]) => end))
  const bits = Array.from({ length: reach }, () => '0')
  for (const [start, end] of data.watched) for (let second = start; second < end; second++) bits[second] = '1'
  const [row] = await query<
    Watchability & {
      length: number | null
      watched_seconds: number | null
      completed: boolean | null
      last_position: number | null
    }
  >(HEARTBEAT, {
    userId,
    videoId: data.videoId,
    courseId: data.courseId,
    bits: bits.join(''),
    reach,
    sentLength: data.duration ?? null,
    claimed,
    position: data.position,
    share: COMPLETION_SHARE,
    burst: BURST_SECONDS,
    speed: MAX_SPEED,
  })
  refuseUnwatchable(row)
  const length = row.length
  if (!length) throw invalid('This video has no duration yet; send the player’s duration with the heartbeat.')
  if (data.position > length || reach > length) throw invalid('The progress reaches beyond the end of the video.')
  // nothing was written: the claim is over the credit
  if (row.watched_seconds === null) throw tooMuch()
  return {
    watchedSeconds: row.watched_seconds,
    completed: Boolean(row.completed),
    lastPosition: row.last_position ?? data.position,
    duration: length,
  }
}

/**
 * One statement per heartbeat: whether the video may be watched now (WATCHABILITY), its length (the
 * admin's duration; without one, the length of the learner's bitmap, else the one the player sent: such
 * a video never completes), then the upsert, only when every check passed and the claim is within the
 * credit. The answer says which check refused, or what was recorded.
 */
const merged = `CAST(rpad(left(p.watched::text, length(EXCLUDED.watched)), length(EXCLUDED.watched), '0') AS varbit)
                | EXCLUDED.watched`
const available = `LEAST(:burst, p.credit + GREATEST(0, extract(epoch FROM now() - p.updated_at)) * :speed)`
const HEARTBEAT = sql(`
  WITH checked AS (
    SELECT w.*, COALESCE(w.duration, w.recorded, CAST(:sentLength AS int)) AS length
      FROM (SELECT ${WATCHABILITY}) w
  ), writable AS (
    SELECT c.length,
           CAST(rpad(CAST(:bits AS text), c.length, '0') AS varbit) AS bits,
           -- without a duration from the admin, completion cannot be judged
           CASE WHEN c.duration IS NOT NULL THEN ceil(CAST(:share AS numeric) * c.duration) ELSE c.length + 1 END AS needed
      FROM checked c
     WHERE c.assigned AND c.found AND c.locked IS NULL AND c.length IS NOT NULL
       AND CAST(:position AS int) <= c.length AND CAST(:reach AS int) <= c.length
  ), written AS (
    INSERT INTO video_progress AS p
           (user_id, video_id, course_id, watched, watched_seconds, last_position, completed, completed_at, credit)
    SELECT CAST(:userId AS uuid), CAST(:videoId AS uuid), CAST(:courseId AS uuid), n.bits, bit_count(n.bits),
           CAST(:position AS int), bit_count(n.bits) >= n.needed,
           CASE WHEN bit_count(n.bits) >= n.needed THEN now() END,
           CAST(:burst AS int) - CAST(:claimed AS int)
      FROM writable n
    ON CONFLICT (user_id, video_id) DO UPDATE SET
           watched = ${merged},
           watched_seconds = bit_count(${merged}),
           last_position = EXCLUDED.last_position,
           completed = p.completed OR bit_count(${merged}) >= (SELECT needed FROM writable),
           completed_at = COALESCE(p.completed_at,
                                   CASE WHEN bit_count(${merged}) >= (SELECT needed FROM writable) THEN now() END),
           credit = ${available} - :claimed,
           updated_at = now()
     WHERE :claimed <= ${available}
    RETURNING watched_seconds, completed, last_position
  )
  SELECT c.assigned, c.found, c.locked, c.length, w.watched_seconds, w.completed, w.last_position
    FROM checked c LEFT JOIN written w ON true`)

const tooMuch = () =>
  new ServiceError(
    429,
    'More was reported as watched than the time since the last report allows; nothing was recorded.',
  )

const VIDEOS_PROGRESS = sql(
  `SELECT p.video_id, p.completed, p.watched_seconds, p.last_position, p.updated_at
     FROM video_progress p
     JOIN content_entries e ON e.id = p.video_id AND (e.visibility OR :adminSide)
    WHERE p.user_id = :userId AND p.course_id = :courseId`,
)

/**
 * POST /api/category/getVideosProgress: a learner's own records for a course, of the videos they can
 * see; the admin side reads anyone's, hidden videos included.
 */
export async function listVideosProgress(actor: Actor, input: { userId: unknown; courseId: unknown }) {
  const { userId, courseId } = VideosProgressQuerySchema.parse(input)
  if (userId !== actor.id) requirePermission(actor, 'read:people', 'You can read only your own progress.')
  if (userId === actor.id && !(await canOpenCourse(actor, courseId)))
    throw forbidden('This course is not assigned to you.')
  const rows = await query<{
    video_id: string
    completed: boolean
    watched_seconds: number
    last_position: number
    updated_at: Date
  }>(VIDEOS_PROGRESS, { userId, courseId, adminSide: can(actor, 'read:course:any') })
  return rows.map((r) => ({
    videoId: r.video_id,
    completed: r.completed,
    watchedSeconds: r.watched_seconds,
    lastPosition: r.last_position,
    updatedAt: new Date(r.updated_at).toISOString(),
  }))
}

/**
 * POST /api/category/videoAudit: the player's audit heartbeat; per learner and video it
 * keeps the furthest progress and when it was last viewed, for the admin access-log report.
 */
export async function recordVideoAudit(actor: Actor, input: VideoAuditInput) {
  const userId = requireLearner(actor)
  const data = VideoAuditSchema.parse(input)
  if (data.userId !== userId) throw forbidden('You can record only your own viewing.')
  if (data.videoProgress > data.videoDuration) throw invalid('videoProgress cannot be beyond videoDuration.')
  // the report shows the portal's duration, and no further than the learner's progress has really been
  const [row] = await query<Watchability & { duration: number | null }>(VIDEO_AUDIT, {
    userId,
    videoId: data.videoId,
    courseId: data.courseId,
    sentDuration: Math.round(data.videoDuration),
    sentProgress: data.videoProgress,
    progress: Math.floor(data.videoProgress),
  })
  refuseUnwatchable(row)
  if (row.duration && data.videoProgress > row.duration + 1)
    throw invalid('videoProgress reaches beyond the end of the video.')
}

/** One statement per audit: the checks of WATCHABILITY, then the upsert when they pass. */
const VIDEO_AUDIT = sql(`
  WITH checked AS (SELECT ${WATCHABILITY}), written AS (
    INSERT INTO video_audits AS a (user_id, video_id, course_id, video_duration, video_progress, last_viewed_at)
    SELECT CAST(:userId AS uuid), CAST(:videoId AS uuid), CAST(:courseId AS uuid),
           COALESCE(c.duration, CAST(:sentDuration AS int)),
           LEAST(CAST(:progress AS int),
                 COALESCE((SELECT last_position FROM video_progress WHERE user_id = :userId AND video_id = :videoId), 0)),
           now()
      FROM checked c
     WHERE c.assigned AND c.found AND c.locked IS NULL
       AND (c.duration IS NULL OR CAST(:sentProgress AS double precision) <= c.duration + 1)
    ON CONFLICT (user_id, video_id) DO UPDATE SET
      video_duration = EXCLUDED.video_duration,
      video_progress = GREATEST(a.video_progress, EXCLUDED.video_progress),
      last_viewed_at = now()
  )
  SELECT c.assigned, c.found, c.locked, c.duration FROM checked c`)

/**
 * POST /api/user/postAccessLog: a learner's page is open and visible. One row per ping,
 * at the server's time; pings closer than 30 s for the same page are folded into the previous one.
 */
export async function recordAccessLogPing(actor: Actor, input: AccessLogPingInput): Promise<{ recorded: boolean }> {
  const userId = requireLearner(actor)
  const data = AccessLogPingSchema.parse(input)
  if (data.videoId && !data.courseId) throw invalid('A video ping needs its courseId.')
  if (data.courseId && data.videoId) {
    const [row] = await query<Watchability & { recorded: boolean }>(VIDEO_PING, {
      userId,
      pageName: data.pageName,
      courseId: data.courseId,
      videoId: data.videoId,
    })
    refuseUnwatchable(row)
    return { recorded: row.recorded }
  }
  if (data.courseId && !(await canOpenCourse(actor, data.courseId)))
    throw forbidden('This course is not assigned to you.')
  const rows = await query(ACCESS_LOG_PING, {
    userId,
    pageName: data.pageName,
    courseId: data.courseId ?? null,
    videoId: data.videoId ?? null,
  })
  return { recorded: rows.length > 0 }
}

const ACCESS_LOG_PING = sql(`
  INSERT INTO access_log_pings (user_id, page_name, course_id, video_id)
  SELECT CAST(:userId AS uuid), CAST(:pageName AS text), CAST(:courseId AS uuid), CAST(:videoId AS uuid)
   WHERE NOT EXISTS (
     SELECT 1 FROM access_log_pings
      WHERE user_id = :userId AND page_name = :pageName AND recorded_at > now() - interval '30 seconds'
        AND course_id IS NOT DISTINCT FROM CAST(:courseId AS uuid) AND video_id IS NOT DISTINCT FROM CAST(:videoId AS uuid))
  RETURNING id`)

/** A ping of a video page in one statement: the checks of WATCHABILITY, then the insert when they pass. */
const VIDEO_PING = sql(`
  WITH checked AS (SELECT ${WATCHABILITY}), written AS (
    INSERT INTO access_log_pings (user_id, page_name, course_id, video_id)
    SELECT CAST(:userId AS uuid), CAST(:pageName AS text), CAST(:courseId AS uuid), CAST(:videoId AS uuid)
      FROM checked c
     WHERE c.assigned AND c.found AND c.locked IS NULL
       AND NOT EXISTS (
         SELECT 1 FROM access_log_pings
          WHERE user_id = :userId AND page_name = :pageName AND recorded_at > now() - interval '30 seconds'
            AND course_id = :courseId AND video_id = :videoId)
    RETURNING id
  )
  SELECT c.assigned, c.found, c.locked, EXISTS (SELECT 1 FROM written) AS recorded FROM checked c`)
