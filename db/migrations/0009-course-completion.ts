import type { MigrationFn } from '#db/migrate.ts'

// Course completion for the dashboard, kept current instead of counted (ADR 014).
//
// course_completion_tallies holds, per learner and course, how many of the course's visible videos the
// learner has completed. A learner has completed a course when that number equals the course's count of
// visible videos, so the dashboard compares one small row per learner instead of reading every progress
// row. Triggers keep it exact:
//   video_progress   a row whose `completed` turns true (or is inserted completed) adds one for its
//                    learner and course when the video is visible; one that turns false or is deleted
//                    takes one away
//   content_entries  hiding a video takes one from every learner who completed it, showing it again
//                    gives it back; deleting a visible video takes it away before its progress goes
// Heartbeats that do not change `completed` are filtered by the trigger's WHEN and cost nothing.
export const up: MigrationFn = async ({ context: sql }) => {
  await sql(`
    CREATE TABLE course_completion_tallies (
      user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
      course_id uuid NOT NULL REFERENCES courses (id) ON DELETE CASCADE,
      completed_videos integer NOT NULL,
      PRIMARY KEY (user_id, course_id)
    );
    CREATE INDEX course_completion_tallies_course_idx
      ON course_completion_tallies (course_id, completed_videos, user_id);

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

    -- what is already recorded, counted once
    INSERT INTO course_completion_tallies (user_id, course_id, completed_videos)
    SELECT p.user_id, p.course_id, count(*)
      FROM video_progress p
      JOIN content_entries e ON e.id = p.video_id AND e.kind = 'video' AND e.visibility
     WHERE p.completed
     GROUP BY p.user_id, p.course_id;
  `)
}

export const down: MigrationFn = async ({ context: sql }) => {
  await sql(`
    DROP TRIGGER IF EXISTS content_entry_completion_deleted ON content_entries;
    DROP TRIGGER IF EXISTS content_entry_completion_changed ON content_entries;
    DROP TRIGGER IF EXISTS video_progress_completion_deleted ON video_progress;
    DROP TRIGGER IF EXISTS video_progress_completion_changed ON video_progress;
    DROP TRIGGER IF EXISTS video_progress_completed ON video_progress;
    DROP TABLE IF EXISTS course_completion_tallies;
    DROP FUNCTION IF EXISTS content_entry_completion(), video_progress_completion(),
      tally_completed_video(uuid, uuid, uuid, integer);
  `)
}
