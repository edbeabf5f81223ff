import type { MigrationFn } from '#db/migration.ts'

// Figures kept current for the dashboard and the access log instead of counted per request (ADR 014).
//
// video_viewings also carries what the access log shows of a viewing: `furthest`, the furthest point the
// learner reached (the playhead, the last second really played, or the video audit's progress, whichever is
// greatest) and `seen_duration`, the length the player reported (the audit's, else the bitmap's). Written by
// the same triggers as last_viewed_at, they spare the report two lookups per row, which on an export of a
// million rows were most of its time. A heartbeat already writes its viewing row when it moves the time;
// now it also does when the furthest point moves (a HOT update: neither column is indexed).
//
// course_completion_tallies holds, per learner and course, how many of the course's visible videos the
// learner has completed, and whether the course is assigned to the learner directly (every assigned
// learner has a row, with 0 until they complete a video). Triggers keep it exact:
//   video_progress      a row whose `completed` turns true (or is inserted completed) adds one for its
//                       learner and course when the video is visible; one that turns false or goes takes one
//   content_entries     hiding a video takes one from every learner who completed it, showing it again gives
//                       it back; deleting a visible video takes it away before its progress goes
//   course_assignments  an assignment sets `assigned`, taking it away clears it
// Heartbeats that do not change `completed` are filtered by the trigger's WHEN and cost nothing.
//
// course_completion_counts holds, per course, the learners assigned and those of them who completed every
// visible video, so the dashboard reads one row per course. A trigger on the tallies moves the counts by
// what the changed row itself contributes (assigned; assigned and done), so no order of cascading deletes
// can leave them wrong. When a course's number of visible videos changes (a video added, hidden, shown or
// deleted) the course is counted again from its tallies, in one statement.
export const up: MigrationFn = async ({ context: sql }) => {
  await sql(`
    CREATE TABLE course_completion_tallies (
      user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
      course_id uuid NOT NULL REFERENCES courses (id) ON DELETE CASCADE,
      completed_videos integer NOT NULL DEFAULT 0,
      assigned boolean NOT NULL DEFAULT false,
      PRIMARY KEY (user_id, course_id)
    );
    CREATE INDEX course_completion_tallies_course_idx
      ON course_completion_tallies (course_id, assigned, completed_videos);

    CREATE TABLE course_completion_counts (
      course_id uuid PRIMARY KEY REFERENCES courses (id) ON DELETE CASCADE,
      assigned integer NOT NULL,
      completed integer NOT NULL
    );

    CREATE FUNCTION course_visible_videos(p_course uuid) RETURNS integer LANGUAGE sql STABLE AS $$
      SELECT count(*)::integer FROM content_entries WHERE course_id = p_course AND kind = 'video' AND visibility
    $$;

    -- one completed video more (p_delta 1) or fewer (-1) for a learner and course, if the video counts
    CREATE FUNCTION tally_completed_video(p_user uuid, p_course uuid, p_video uuid, p_delta integer)
      RETURNS void LANGUAGE plpgsql AS $$
    BEGIN
      IF NOT EXISTS (SELECT 1 FROM content_entries e WHERE e.id = p_video AND e.kind = 'video' AND e.visibility) THEN
        RETURN;
      END IF;
      IF p_delta > 0 THEN
        INSERT INTO course_completion_tallies AS t (user_id, course_id, completed_videos)
        VALUES (p_user, p_course, p_delta)
        ON CONFLICT (user_id, course_id) DO UPDATE SET completed_videos = t.completed_videos + EXCLUDED.completed_videos;
      ELSE
        -- only ever an update: the learner may be the one being deleted
        UPDATE course_completion_tallies SET completed_videos = completed_videos + p_delta
         WHERE user_id = p_user AND course_id = p_course;
      END IF;
    END $$;

    CREATE FUNCTION video_progress_completion() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_OP <> 'INSERT' AND OLD.completed THEN
        PERFORM tally_completed_video(OLD.user_id, OLD.course_id, OLD.video_id, -1);
      END IF;
      IF TG_OP <> 'DELETE' AND NEW.completed THEN
        PERFORM tally_completed_video(NEW.user_id, NEW.course_id, NEW.video_id, 1);
      END IF;
      RETURN NULL;
    END $$;
    CREATE TRIGGER video_progress_completed AFTER INSERT ON video_progress
      FOR EACH ROW WHEN (NEW.completed) EXECUTE FUNCTION video_progress_completion();
    CREATE TRIGGER video_progress_completion_changed AFTER UPDATE OF completed, user_id, video_id, course_id
      ON video_progress FOR EACH ROW
      WHEN (OLD.completed IS DISTINCT FROM NEW.completed
            OR (OLD.completed AND (OLD.user_id, OLD.video_id, OLD.course_id)
                                  IS DISTINCT FROM (NEW.user_id, NEW.video_id, NEW.course_id)))
      EXECUTE FUNCTION video_progress_completion();
    CREATE TRIGGER video_progress_completion_deleted AFTER DELETE ON video_progress
      FOR EACH ROW WHEN (OLD.completed) EXECUTE FUNCTION video_progress_completion();

    -- a course assigned directly, or no longer
    CREATE FUNCTION course_assignment_completion() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_OP = 'INSERT' THEN
        INSERT INTO course_completion_tallies AS t (user_id, course_id, assigned) VALUES (NEW.user_id, NEW.course_id, true)
        ON CONFLICT (user_id, course_id) DO UPDATE SET assigned = true;
      ELSE
        UPDATE course_completion_tallies SET assigned = false WHERE user_id = OLD.user_id AND course_id = OLD.course_id;
      END IF;
      RETURN NULL;
    END $$;
    CREATE TRIGGER course_assignment_completion AFTER INSERT OR DELETE ON course_assignments
      FOR EACH ROW EXECUTE FUNCTION course_assignment_completion();

    -- a course counted from its tallies; nothing when the course is gone (being deleted)
    CREATE FUNCTION recount_course_completion(p_course uuid) RETURNS void LANGUAGE sql AS $$
      INSERT INTO course_completion_counts AS k (course_id, assigned, completed)
      SELECT c.id,
             (SELECT count(*) FROM course_completion_tallies t WHERE t.course_id = c.id AND t.assigned),
             (SELECT count(*) FROM course_completion_tallies t
               WHERE t.course_id = c.id AND t.assigned AND n.videos > 0 AND t.completed_videos = n.videos)
        FROM courses c CROSS JOIN (SELECT course_visible_videos(p_course) AS videos) n
       WHERE c.id = p_course
      ON CONFLICT (course_id) DO UPDATE SET assigned = EXCLUDED.assigned, completed = EXCLUDED.completed
    $$;

    -- the counts move by what this learner's row adds or no longer adds
    CREATE FUNCTION course_completion_tally_changed() RETURNS trigger LANGUAGE plpgsql AS $$
    DECLARE
      course uuid := CASE WHEN TG_OP = 'DELETE' THEN OLD.course_id ELSE NEW.course_id END;
      videos integer := course_visible_videos(course);
      assigned_delta integer := (TG_OP <> 'DELETE' AND NEW.assigned)::integer - (TG_OP <> 'INSERT' AND OLD.assigned)::integer;
      completed_delta integer :=
        (TG_OP <> 'DELETE' AND NEW.assigned AND videos > 0 AND NEW.completed_videos = videos)::integer
        - (TG_OP <> 'INSERT' AND OLD.assigned AND videos > 0 AND OLD.completed_videos = videos)::integer;
    BEGIN
      IF assigned_delta = 0 AND completed_delta = 0 THEN RETURN NULL; END IF;
      INSERT INTO course_completion_counts AS k (course_id, assigned, completed)
      SELECT c.id, assigned_delta, completed_delta FROM courses c WHERE c.id = course
      ON CONFLICT (course_id) DO UPDATE
        SET assigned = k.assigned + EXCLUDED.assigned, completed = k.completed + EXCLUDED.completed;
      RETURN NULL;
    END $$;
    CREATE TRIGGER course_completion_tally_changed AFTER INSERT OR DELETE OR UPDATE OF completed_videos, assigned
      ON course_completion_tallies FOR EACH ROW EXECUTE FUNCTION course_completion_tally_changed();

    -- a video hidden, shown, or deleted: every learner who completed it, in one statement
    CREATE FUNCTION content_entry_completion() RETURNS trigger LANGUAGE plpgsql AS $$
    DECLARE
      counted_before boolean := TG_OP <> 'INSERT' AND OLD.kind = 'video' AND OLD.visibility;
      counted_after boolean := TG_OP = 'UPDATE' AND NEW.kind = 'video' AND NEW.visibility;
    BEGIN
      IF counted_after AND NOT counted_before THEN
        INSERT INTO course_completion_tallies AS t (user_id, course_id, completed_videos)
        SELECT p.user_id, p.course_id, 1 FROM video_progress p WHERE p.video_id = NEW.id AND p.completed
        ON CONFLICT (user_id, course_id) DO UPDATE SET completed_videos = t.completed_videos + 1;
      ELSIF counted_before AND NOT counted_after THEN
        UPDATE course_completion_tallies t SET completed_videos = t.completed_videos - 1
          FROM video_progress p
         WHERE p.video_id = OLD.id AND p.completed AND t.user_id = p.user_id AND t.course_id = p.course_id;
      END IF;
      -- a BEFORE DELETE trigger lets the delete go on only by returning the row
      RETURN CASE WHEN TG_OP = 'DELETE' THEN OLD END;
    END $$;
    CREATE TRIGGER content_entry_completion_changed AFTER UPDATE OF visibility, kind ON content_entries
      FOR EACH ROW WHEN (OLD.visibility IS DISTINCT FROM NEW.visibility OR OLD.kind IS DISTINCT FROM NEW.kind)
      EXECUTE FUNCTION content_entry_completion();
    -- before the row goes, while its progress still says who completed it (the cascade that deletes the
    -- progress then finds no visible video and changes nothing)
    CREATE TRIGGER content_entry_completion_deleted BEFORE DELETE ON content_entries
      FOR EACH ROW WHEN (OLD.kind = 'video' AND OLD.visibility) EXECUTE FUNCTION content_entry_completion();

    -- the number of visible videos changed: the course is counted again once its tallies are adjusted
    -- (triggers on one event fire in name order: content_entry_completion_changed comes first)
    CREATE FUNCTION content_entry_recount() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      PERFORM recount_course_completion(CASE WHEN TG_OP = 'DELETE' THEN OLD.course_id ELSE NEW.course_id END);
      RETURN NULL;
    END $$;
    CREATE TRIGGER content_entry_recount_added AFTER INSERT ON content_entries
      FOR EACH ROW WHEN (NEW.kind = 'video' AND NEW.visibility) EXECUTE FUNCTION content_entry_recount();
    CREATE TRIGGER content_entry_recount_changed AFTER UPDATE OF visibility, kind ON content_entries
      FOR EACH ROW WHEN (OLD.visibility IS DISTINCT FROM NEW.visibility OR OLD.kind IS DISTINCT FROM NEW.kind)
      EXECUTE FUNCTION content_entry_recount();
    CREATE TRIGGER content_entry_recount_deleted AFTER DELETE ON content_entries
      FOR EACH ROW WHEN (OLD.kind = 'video' AND OLD.visibility) EXECUTE FUNCTION content_entry_recount();

    ALTER TABLE video_viewings ADD COLUMN furthest integer NOT NULL DEFAULT 0, ADD COLUMN seen_duration integer;

    -- the latest view of a learner and video from either source, and how far they got, written through
    CREATE OR REPLACE FUNCTION record_viewing(p_user uuid, p_video uuid, p_course uuid, p_at timestamptz)
      RETURNS void LANGUAGE sql AS $$
      INSERT INTO video_viewings AS v (user_id, video_id, course_id, last_viewed_at, furthest, seen_duration)
      SELECT p_user, p_video, p_course,
             GREATEST(p.updated_at, a.last_viewed_at, p_at),
             GREATEST(p.last_position, length(rtrim(p.watched::text, '0')), a.video_progress, 0),
             COALESCE(a.video_duration, NULLIF(length(p.watched), 0))
        FROM (SELECT 1) one
        LEFT JOIN video_progress p ON p.user_id = p_user AND p.video_id = p_video
        LEFT JOIN video_audits a ON a.user_id = p_user AND a.video_id = p_video
      ON CONFLICT (user_id, video_id) DO UPDATE SET
        last_viewed_at = CASE WHEN EXCLUDED.last_viewed_at >= v.last_viewed_at + interval '1 minute'
                                OR utc_day(EXCLUDED.last_viewed_at) <> utc_day(v.last_viewed_at)
                                -- a source moved back in time (a correction): the viewing follows it
                                OR EXCLUDED.last_viewed_at < v.last_viewed_at
                              THEN EXCLUDED.last_viewed_at ELSE v.last_viewed_at END,
        furthest = EXCLUDED.furthest,
        seen_duration = EXCLUDED.seen_duration
        WHERE EXCLUDED.last_viewed_at >= v.last_viewed_at + interval '1 minute'
           OR utc_day(EXCLUDED.last_viewed_at) <> utc_day(v.last_viewed_at)
           OR EXCLUDED.last_viewed_at < v.last_viewed_at
           OR EXCLUDED.furthest <> v.furthest
           OR EXCLUDED.seen_duration IS DISTINCT FROM v.seen_duration
    $$;
    -- what moves the furthest point moves the viewing too, whichever column a write changes
    DROP TRIGGER video_progress_viewed ON video_progress;
    CREATE TRIGGER video_progress_viewed AFTER INSERT OR UPDATE OF updated_at, last_position, watched
      ON video_progress FOR EACH ROW EXECUTE FUNCTION video_progress_viewed();
    DROP TRIGGER video_audit_viewed ON video_audits;
    CREATE TRIGGER video_audit_viewed AFTER INSERT OR UPDATE OF last_viewed_at, video_progress, video_duration
      ON video_audits FOR EACH ROW EXECUTE FUNCTION video_audit_viewed();
    UPDATE video_viewings v
       SET furthest = GREATEST(p.last_position, length(rtrim(p.watched::text, '0')), a.video_progress, 0),
           seen_duration = COALESCE(a.video_duration, NULLIF(length(p.watched), 0))
      FROM video_viewings w
      LEFT JOIN video_progress p ON p.user_id = w.user_id AND p.video_id = w.video_id
      LEFT JOIN video_audits a ON a.user_id = w.user_id AND a.video_id = w.video_id
     WHERE w.user_id = v.user_id AND w.video_id = v.video_id;

    -- what is already recorded, counted once (the row triggers above are not needed for it)
    ALTER TABLE course_completion_tallies DISABLE TRIGGER course_completion_tally_changed;
    INSERT INTO course_completion_tallies (user_id, course_id, completed_videos, assigned)
    SELECT coalesce(d.user_id, a.user_id), coalesce(d.course_id, a.course_id), coalesce(d.videos, 0), a.user_id IS NOT NULL
      FROM (SELECT p.user_id, p.course_id, count(*) AS videos
              FROM video_progress p
              JOIN content_entries e ON e.id = p.video_id AND e.kind = 'video' AND e.visibility
             WHERE p.completed
             GROUP BY p.user_id, p.course_id) d
      FULL JOIN course_assignments a ON a.user_id = d.user_id AND a.course_id = d.course_id;
    ALTER TABLE course_completion_tallies ENABLE TRIGGER course_completion_tally_changed;
    SELECT recount_course_completion(id) FROM courses;
  `)
}

export const down: MigrationFn = async ({ context: sql }) => {
  await sql(`
    DROP TRIGGER IF EXISTS content_entry_recount_deleted ON content_entries;
    DROP TRIGGER IF EXISTS content_entry_recount_changed ON content_entries;
    DROP TRIGGER IF EXISTS content_entry_recount_added ON content_entries;
    DROP TRIGGER IF EXISTS content_entry_completion_deleted ON content_entries;
    DROP TRIGGER IF EXISTS content_entry_completion_changed ON content_entries;
    DROP TRIGGER IF EXISTS course_assignment_completion ON course_assignments;
    DROP TRIGGER IF EXISTS video_progress_completion_deleted ON video_progress;
    DROP TRIGGER IF EXISTS video_progress_completion_changed ON video_progress;
    DROP TRIGGER IF EXISTS video_progress_completed ON video_progress;
    DROP TABLE IF EXISTS course_completion_counts, course_completion_tallies;
    DROP TRIGGER video_progress_viewed ON video_progress;
    CREATE TRIGGER video_progress_viewed AFTER INSERT OR UPDATE OF updated_at ON video_progress
      FOR EACH ROW EXECUTE FUNCTION video_progress_viewed();
    DROP TRIGGER video_audit_viewed ON video_audits;
    CREATE TRIGGER video_audit_viewed AFTER INSERT OR UPDATE OF last_viewed_at ON video_audits
      FOR EACH ROW EXECUTE FUNCTION video_audit_viewed();
    CREATE OR REPLACE FUNCTION record_viewing(p_user uuid, p_video uuid, p_course uuid, p_at timestamptz)
      RETURNS void LANGUAGE sql AS $$
      INSERT INTO video_viewings AS v (user_id, video_id, course_id, last_viewed_at)
      SELECT p_user, p_video, p_course,
             GREATEST(
               (SELECT updated_at FROM video_progress WHERE user_id = p_user AND video_id = p_video),
               (SELECT last_viewed_at FROM video_audits WHERE user_id = p_user AND video_id = p_video),
               p_at)
      ON CONFLICT (user_id, video_id) DO UPDATE SET last_viewed_at = EXCLUDED.last_viewed_at
        WHERE EXCLUDED.last_viewed_at >= v.last_viewed_at + interval '1 minute'
           OR utc_day(EXCLUDED.last_viewed_at) <> utc_day(v.last_viewed_at)
           OR EXCLUDED.last_viewed_at < v.last_viewed_at
    $$;
    ALTER TABLE video_viewings DROP COLUMN IF EXISTS furthest, DROP COLUMN IF EXISTS seen_duration;
    DROP FUNCTION IF EXISTS content_entry_recount(), content_entry_completion(), course_completion_tally_changed(),
      recount_course_completion(uuid), course_assignment_completion(), video_progress_completion(),
      tally_completed_video(uuid, uuid, uuid, integer), course_visible_videos(uuid);
  `)
}
