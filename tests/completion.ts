import { QueryTypes, type Sequelize } from 'sequelize'

// Course completion counted from scratch, from the attempts, progress and assignments themselves, to compare
// with what the triggers keep (lab_progress, course_completion_tallies, course_completion_counts). Each
// figure is the number of rows the triggers got wrong; all are 0 when they are exact.

const RECOUNT = `
  WITH holders AS (
    SELECT user_id, course_id FROM course_assignments
    UNION
    SELECT pa.user_id, pc.course_id FROM program_assignments pa JOIN program_courses pc ON pc.program_id = pa.program_id
  ),
  passes AS (
    SELECT DISTINCT a.user_id, e.id AS exercise_id, e.lab_id, e.points
      FROM lab_attempts a JOIN lab_exercises e ON e.id = a.exercise_id
     WHERE a.passed
  ),
  lab_state AS (
    SELECT user_id, lab_id, count(*)::int AS passed, sum(points)::int AS points FROM passes GROUP BY user_id, lab_id
  ),
  done_labs AS (
    SELECT s.user_id, s.lab_id FROM lab_state s
     WHERE s.passed = (SELECT count(*) FROM lab_exercises e WHERE e.lab_id = s.lab_id)
  ),
  course_videos AS (
    SELECT c.id AS course_id,
           (SELECT count(*) FROM content_entries e WHERE e.course_id = c.id AND e.kind = 'video' AND e.visibility)::int
             AS videos,
           (SELECT count(*) FROM labs l WHERE l.course_id = c.id AND l.visibility)::int AS labs
      FROM courses c
  ),
  learner_course AS (
    SELECT u.user_id, u.course_id,
           (SELECT count(*) FROM video_progress p JOIN content_entries e ON e.id = p.video_id
             WHERE p.user_id = u.user_id AND p.course_id = u.course_id AND p.completed
               AND e.kind = 'video' AND e.visibility)::int AS videos,
           (SELECT count(*) FROM done_labs d JOIN labs l ON l.id = d.lab_id
             WHERE d.user_id = u.user_id AND l.course_id = u.course_id AND l.visibility)::int AS labs
      FROM (SELECT user_id, course_id FROM course_completion_tallies
            UNION SELECT user_id, course_id FROM holders
            UNION SELECT d.user_id, l.course_id FROM done_labs d JOIN labs l ON l.id = d.lab_id AND l.visibility) u
  )
  SELECT
    (SELECT count(*) FROM lab_progress p LEFT JOIN lab_state s ON s.user_id = p.user_id AND s.lab_id = p.lab_id
      WHERE (p.passed_exercises, p.passed_points, p.completed) IS DISTINCT FROM
            (COALESCE(s.passed, 0), COALESCE(s.points, 0),
             EXISTS (SELECT 1 FROM done_labs d WHERE d.user_id = p.user_id AND d.lab_id = p.lab_id)))::int
      AS lab_progress,
    (SELECT count(*) FROM (SELECT DISTINCT a.user_id, e.lab_id FROM lab_attempts a
                             JOIN lab_exercises e ON e.id = a.exercise_id) x
      WHERE NOT EXISTS (SELECT 1 FROM lab_progress p WHERE p.user_id = x.user_id AND p.lab_id = x.lab_id))::int
      AS lab_progress_missing,
    (SELECT count(*) FROM learner_course r
       LEFT JOIN course_completion_tallies t ON t.user_id = r.user_id AND t.course_id = r.course_id
      WHERE (COALESCE(t.completed_videos, 0), COALESCE(t.completed_labs, 0), COALESCE(t.assigned, false))
            IS DISTINCT FROM
            (r.videos, r.labs, EXISTS (SELECT 1 FROM holders h WHERE h.user_id = r.user_id AND h.course_id = r.course_id))
         OR (t.user_id IS NULL AND r.labs > 0))::int AS tallies,
    (SELECT count(*) FROM course_videos v LEFT JOIN course_completion_counts k ON k.course_id = v.course_id
      WHERE (COALESCE(k.assigned, 0), COALESCE(k.completed, 0)) IS DISTINCT FROM (
              (SELECT count(*) FROM holders h WHERE h.course_id = v.course_id),
              (SELECT count(*) FROM holders h JOIN learner_course r ON r.user_id = h.user_id AND r.course_id = h.course_id
                WHERE h.course_id = v.course_id AND v.videos + v.labs > 0
                  AND r.videos = v.videos AND r.labs = v.labs)))::int AS counts`

type CompletionMismatches = {
  lab_progress: number
  lab_progress_missing: number
  tallies: number
  counts: number
}

/** The rows of lab_progress, the tallies and the counts that differ from a recount: all 0 when exact. */
export async function completionMismatches(sql: Sequelize): Promise<CompletionMismatches> {
  const [row] = await sql.query<CompletionMismatches>(RECOUNT, { type: QueryTypes.SELECT })
  return row
}

/** No mismatch at all. */
export const EXACT: CompletionMismatches = { lab_progress: 0, lab_progress_missing: 0, tallies: 0, counts: 0 }
