import type { MigrationFn } from '#db/migration.ts'

// Labs count toward a course's completion (docs/product.md#progress): a learner has completed a course when
// it has at least one visible video or visible lab, every visible video is completed and every visible lab
// is complete, that is each of its current exercises has a passed attempt (a lab without exercises is never
// complete, as a video without a duration is never completed). Kept by triggers, like 0009's tallies:
//
// lab_progress holds, per learner and lab they attempted, the exercises and points they have passed and
// whether that is all of the lab's exercises. A row is made by the learner's first attempt (so "tried" is
// read from it) and kept while the learner and the lab are there.
//   lab_attempts   an attempt makes the row; a passed one counts the row again, but only when it is the
//                  learner's first pass of that exercise (later ones change nothing); a passed attempt that
//                  goes, or changes, counts it again
//   lab_exercises  an exercise added (by an import) un-completes those who had done the lab; one removed
//                  takes its points from those who passed it, before its attempts go, and may complete the
//                  lab for the others; one whose points change moves its passers' points
//
// course_completion_tallies.completed_labs is, per learner and course, how many of the course's visible
// labs the learner has completed, moved as completed_videos is:
//   lab_progress   a row whose `completed` turns true adds one when the lab is visible; false, or gone, takes it
//   labs           hiding a lab takes one from each learner who completed it, showing it gives it back, and
//                  deleting a visible one takes it away before its rows go (BEFORE DELETE, as for videos);
//                  then the course is counted again, its number of visible labs having changed
// The counts' trigger and recount_course_completion now ask for the visible videos and labs alike.
//
// Concurrency. An import changes a lab's exercises while holding the lab's row (SELECT … FOR UPDATE), and
// the exercise triggers take that row too for any other writer. An attempt holds the lab's row for key
// share before its own foreign key holds its exercise's (a BEFORE trigger), in the order the import takes
// them: an attempt made while an import is under way is counted after it, against the exercises it left,
// and neither waits on the other in a circle. Two passes by one learner in one lab queue on the learner's
// lab_progress row, and the second, once the first has committed, counts with the first's attempt in view
// (plpgsql, VOLATILE: each statement sees what committed before it). A learner's lab turning complete reads
// the lab's visibility under a share lock of its row, so a lab being shown or hidden at the same moment is
// waited for (or waits) and either counts the learner or is counted by them. Left as 0009 left it: a course
// counted again (a video or lab shown, hidden, added or deleted) is not serialized with another learner's
// tally moving in the same course at that moment.
//
// Heartbeats change nothing here: no trigger is added to video_progress, and the tallies' trigger runs only
// when a tally moves.
export const up: MigrationFn = async ({ context: sql }) => {
  await sql(`
    CREATE TABLE lab_progress (
      user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
      lab_id uuid NOT NULL REFERENCES labs (id) ON DELETE CASCADE,
      passed_exercises integer NOT NULL DEFAULT 0 CHECK (passed_exercises >= 0),
      passed_points integer NOT NULL DEFAULT 0 CHECK (passed_points >= 0),
      completed boolean NOT NULL DEFAULT false,
      PRIMARY KEY (user_id, lab_id)
    );
    CREATE INDEX lab_progress_lab_idx ON lab_progress (lab_id, completed);

    ALTER TABLE course_completion_tallies ADD COLUMN completed_labs integer NOT NULL DEFAULT 0;

    -- the rules, once: a lab done, a course done
    CREATE FUNCTION lab_done(p_passed integer, p_exercises integer) RETURNS boolean LANGUAGE sql IMMUTABLE AS $$
      SELECT p_exercises > 0 AND p_passed = p_exercises
    $$;
    CREATE FUNCTION course_done(p_videos integer, p_labs integer, p_visible_videos integer, p_visible_labs integer)
      RETURNS boolean LANGUAGE sql IMMUTABLE AS $$
      SELECT p_visible_videos + p_visible_labs > 0 AND p_videos = p_visible_videos AND p_labs = p_visible_labs
    $$;

    CREATE FUNCTION course_visible_labs(p_course uuid) RETURNS integer LANGUAGE sql STABLE AS $$
      SELECT count(*)::integer FROM labs WHERE course_id = p_course AND visibility
    $$;

    -- a learner's row of a lab counted again from their passed attempts, under the row's lock (a statement
    -- after the lock sees what the transaction that held it committed); nothing when there is no row
    CREATE FUNCTION recount_lab_progress(p_user uuid, p_lab uuid) RETURNS void LANGUAGE plpgsql AS $$
    BEGIN
      PERFORM 1 FROM lab_progress WHERE user_id = p_user AND lab_id = p_lab FOR UPDATE;
      IF NOT FOUND THEN RETURN; END IF;
      UPDATE lab_progress p
         SET passed_exercises = s.passed, passed_points = s.points, completed = lab_done(s.passed, s.exercises)
        FROM (SELECT (count(*) FILTER (WHERE x.passed))::integer AS passed,
                     COALESCE(sum(e.points) FILTER (WHERE x.passed), 0)::integer AS points,
                     count(*)::integer AS exercises
                FROM lab_exercises e
                CROSS JOIN LATERAL (SELECT EXISTS (SELECT 1 FROM lab_attempts a
                                                    WHERE a.exercise_id = e.id AND a.user_id = p_user AND a.passed)
                                           AS passed) x
               WHERE e.lab_id = p_lab) s
       WHERE p.user_id = p_user AND p.lab_id = p_lab
         AND (p.passed_exercises, p.passed_points, p.completed)
             IS DISTINCT FROM (s.passed, s.points, lab_done(s.passed, s.exercises));
    END $$;

    -- every learner of a lab counted again from the attempts, in two statements: the migration's backfill,
    -- and an exercise moved to another lab (nothing in the portal does that)
    CREATE FUNCTION recount_lab(p_lab uuid) RETURNS void LANGUAGE plpgsql AS $$
    BEGIN
      -- see settle_lab_completion
      PERFORM 1 FROM course_completion_tallies t
        JOIN labs l ON l.id = p_lab AND t.course_id = l.course_id
        JOIN lab_progress p ON p.lab_id = p_lab AND p.user_id = t.user_id
       ORDER BY t.user_id FOR NO KEY UPDATE OF t;
      INSERT INTO lab_progress (user_id, lab_id)
      SELECT DISTINCT a.user_id, p_lab FROM lab_exercises e JOIN lab_attempts a ON a.exercise_id = e.id
       WHERE e.lab_id = p_lab
      ON CONFLICT DO NOTHING;
      UPDATE lab_progress p
         SET passed_exercises = s.passed, passed_points = s.points, completed = lab_done(s.passed, n.exercises)
        FROM (SELECT q.user_id, count(d.exercise_id)::integer AS passed, COALESCE(sum(d.points), 0)::integer AS points
                FROM lab_progress q
                LEFT JOIN (SELECT DISTINCT a.user_id, e.id AS exercise_id, e.points
                             FROM lab_exercises e JOIN lab_attempts a ON a.exercise_id = e.id AND a.passed
                            WHERE e.lab_id = p_lab) d ON d.user_id = q.user_id
               WHERE q.lab_id = p_lab
               GROUP BY q.user_id) s
       CROSS JOIN (SELECT count(*)::integer AS exercises FROM lab_exercises WHERE lab_id = p_lab) n
       WHERE p.lab_id = p_lab AND p.user_id = s.user_id
         AND (p.passed_exercises, p.passed_points, p.completed)
             IS DISTINCT FROM (s.passed, s.points, lab_done(s.passed, n.exercises));
    END $$;

    -- what is already recorded, counted once, before the triggers below exist
    SELECT recount_lab(id) FROM labs;
    ALTER TABLE course_completion_tallies DISABLE TRIGGER course_completion_tally_changed;
    INSERT INTO course_completion_tallies AS t (user_id, course_id, completed_labs)
    SELECT p.user_id, l.course_id, count(*)
      FROM lab_progress p JOIN labs l ON l.id = p.lab_id AND l.visibility
     WHERE p.completed
     GROUP BY p.user_id, l.course_id
    ON CONFLICT (user_id, course_id) DO UPDATE SET completed_labs = EXCLUDED.completed_labs;
    ALTER TABLE course_completion_tallies ENABLE TRIGGER course_completion_tally_changed;

    -- --- attempts ---

    -- before the attempt's foreign key holds its exercise: the lab's row, for key share (see above)
    CREATE FUNCTION lab_attempt_holds_lab() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      PERFORM 1 FROM labs l JOIN lab_exercises e ON e.lab_id = l.id WHERE e.id = NEW.exercise_id FOR KEY SHARE OF l;
      RETURN NEW;
    END $$;
    CREATE TRIGGER lab_attempt_holds_lab BEFORE INSERT OR UPDATE OF exercise_id, user_id, passed ON lab_attempts
      FOR EACH ROW EXECUTE FUNCTION lab_attempt_holds_lab();

    CREATE FUNCTION lab_attempt_progress() RETURNS trigger LANGUAGE plpgsql AS $$
    DECLARE
      lab uuid;
    BEGIN
      IF TG_OP <> 'INSERT' AND OLD.passed THEN
        -- no exercise: it is being deleted, and its own trigger took its points away
        SELECT e.lab_id INTO lab FROM lab_exercises e WHERE e.id = OLD.exercise_id;
        IF lab IS NOT NULL THEN PERFORM recount_lab_progress(OLD.user_id, lab); END IF;
      END IF;
      IF TG_OP <> 'DELETE' THEN
        SELECT e.lab_id INTO lab FROM lab_exercises e WHERE e.id = NEW.exercise_id;
        INSERT INTO lab_progress (user_id, lab_id) VALUES (NEW.user_id, lab) ON CONFLICT DO NOTHING;
        IF NEW.passed THEN
          PERFORM 1 FROM lab_progress WHERE user_id = NEW.user_id AND lab_id = lab FOR UPDATE;
          -- only the first pass of an exercise counts
          IF NOT EXISTS (SELECT 1 FROM lab_attempts a
                          WHERE a.exercise_id = NEW.exercise_id AND a.user_id = NEW.user_id AND a.passed
                            AND a.id <> NEW.id) THEN
            PERFORM recount_lab_progress(NEW.user_id, lab);
          END IF;
        END IF;
      END IF;
      RETURN NULL;
    END $$;
    CREATE TRIGGER lab_attempt_progress AFTER INSERT ON lab_attempts
      FOR EACH ROW EXECUTE FUNCTION lab_attempt_progress();
    CREATE TRIGGER lab_attempt_progress_changed AFTER UPDATE OF exercise_id, user_id, passed ON lab_attempts
      FOR EACH ROW WHEN ((OLD.exercise_id, OLD.user_id, OLD.passed) IS DISTINCT FROM (NEW.exercise_id, NEW.user_id, NEW.passed))
      EXECUTE FUNCTION lab_attempt_progress();
    CREATE TRIGGER lab_attempt_progress_deleted AFTER DELETE ON lab_attempts
      FOR EACH ROW WHEN (OLD.passed) EXECUTE FUNCTION lab_attempt_progress();

    -- --- exercises ---

    -- the lab's row, as an import holds it; false when the lab is gone (being deleted, its rows going with it)
    CREATE FUNCTION hold_lab(p_lab uuid) RETURNS boolean LANGUAGE plpgsql AS $$
    BEGIN
      PERFORM 1 FROM labs WHERE id = p_lab FOR UPDATE;
      RETURN FOUND;
    END $$;

    -- the lab's number of exercises changed: each learner's completion follows. The tallies it moves are
    -- locked first, in one statement and in one order: each row's trigger then moves its tally and the
    -- course's count, and no count is held while a learner's tally is waited for (a learner completing a
    -- video of the course at that moment holds their tally, then wants the count). Only the transaction's
    -- first such change holds nothing yet: an import that both removes and adds exercises can still meet a
    -- heartbeat in a deadlock, which PostgreSQL ends by failing one of the two.
    CREATE FUNCTION settle_lab_completion(p_lab uuid) RETURNS void LANGUAGE plpgsql AS $$
    DECLARE
      exercises integer := (SELECT count(*)::integer FROM lab_exercises WHERE lab_id = p_lab);
    BEGIN
      PERFORM 1 FROM course_completion_tallies t
        JOIN labs l ON l.id = p_lab AND l.visibility AND t.course_id = l.course_id
        JOIN lab_progress p ON p.lab_id = p_lab AND p.user_id = t.user_id
       WHERE p.completed IS DISTINCT FROM lab_done(p.passed_exercises, exercises)
       ORDER BY t.user_id FOR NO KEY UPDATE OF t;
      UPDATE lab_progress p SET completed = lab_done(p.passed_exercises, exercises)
       WHERE p.lab_id = p_lab AND p.completed IS DISTINCT FROM lab_done(p.passed_exercises, exercises);
    END $$;

    CREATE FUNCTION lab_exercise_progress() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_OP = 'INSERT' THEN
        -- nobody has passed a new exercise
        IF hold_lab(NEW.lab_id) THEN PERFORM settle_lab_completion(NEW.lab_id); END IF;
      ELSIF TG_OP = 'DELETE' THEN
        -- once the exercise and its attempts are gone
        IF hold_lab(OLD.lab_id) THEN PERFORM settle_lab_completion(OLD.lab_id); END IF;
      ELSIF OLD.lab_id IS DISTINCT FROM NEW.lab_id THEN
        IF hold_lab(OLD.lab_id) THEN PERFORM recount_lab(OLD.lab_id); END IF;
        IF hold_lab(NEW.lab_id) THEN PERFORM recount_lab(NEW.lab_id); END IF;
      ELSIF hold_lab(NEW.lab_id) THEN
        -- its points changed: those who passed it have more, or fewer
        UPDATE lab_progress p SET passed_points = p.passed_points + NEW.points - OLD.points
          FROM (SELECT DISTINCT a.user_id FROM lab_attempts a WHERE a.exercise_id = NEW.id AND a.passed) a
         WHERE p.lab_id = NEW.lab_id AND p.user_id = a.user_id;
      END IF;
      RETURN NULL;
    END $$;
    CREATE TRIGGER lab_exercise_progress_added AFTER INSERT ON lab_exercises
      FOR EACH ROW EXECUTE FUNCTION lab_exercise_progress();
    CREATE TRIGGER lab_exercise_progress_changed AFTER UPDATE OF points, lab_id ON lab_exercises
      FOR EACH ROW WHEN (OLD.points IS DISTINCT FROM NEW.points OR OLD.lab_id IS DISTINCT FROM NEW.lab_id)
      EXECUTE FUNCTION lab_exercise_progress();
    CREATE TRIGGER lab_exercise_progress_deleted AFTER DELETE ON lab_exercises
      FOR EACH ROW EXECUTE FUNCTION lab_exercise_progress();

    -- before an exercise goes, while its attempts still say who passed it (their cascade then finds no
    -- exercise and changes nothing)
    CREATE FUNCTION lab_exercise_removal() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF hold_lab(OLD.lab_id) THEN
        UPDATE lab_progress p
           SET passed_exercises = p.passed_exercises - 1, passed_points = p.passed_points - OLD.points
          FROM (SELECT DISTINCT a.user_id FROM lab_attempts a WHERE a.exercise_id = OLD.id AND a.passed) a
         WHERE p.lab_id = OLD.lab_id AND p.user_id = a.user_id;
      END IF;
      RETURN OLD;
    END $$;
    CREATE TRIGGER lab_exercise_removal BEFORE DELETE ON lab_exercises
      FOR EACH ROW EXECUTE FUNCTION lab_exercise_removal();

    -- --- a learner's lab done, or no longer: the tally of their course ---

    -- one completed lab more (1) or fewer (-1) for a learner, if the lab counts; its row is read under a
    -- share lock, so that a lab being shown or hidden at the same time is waited for
    CREATE FUNCTION tally_completed_lab(p_user uuid, p_lab uuid, p_delta integer) RETURNS void LANGUAGE plpgsql AS $$
    DECLARE
      course uuid;
    BEGIN
      SELECT l.course_id INTO course FROM labs l WHERE l.id = p_lab AND l.visibility FOR SHARE;
      IF course IS NULL THEN RETURN; END IF;
      IF p_delta > 0 THEN
        INSERT INTO course_completion_tallies AS t (user_id, course_id, completed_labs)
        VALUES (p_user, course, p_delta)
        ON CONFLICT (user_id, course_id) DO UPDATE SET completed_labs = t.completed_labs + EXCLUDED.completed_labs;
      ELSE
        -- only ever an update: the learner may be the one being deleted
        UPDATE course_completion_tallies SET completed_labs = completed_labs + p_delta
         WHERE user_id = p_user AND course_id = course;
      END IF;
    END $$;

    CREATE FUNCTION lab_progress_completion() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_OP <> 'INSERT' AND OLD.completed THEN PERFORM tally_completed_lab(OLD.user_id, OLD.lab_id, -1); END IF;
      IF TG_OP <> 'DELETE' AND NEW.completed THEN PERFORM tally_completed_lab(NEW.user_id, NEW.lab_id, 1); END IF;
      RETURN NULL;
    END $$;
    CREATE TRIGGER lab_progress_completed AFTER INSERT ON lab_progress
      FOR EACH ROW WHEN (NEW.completed) EXECUTE FUNCTION lab_progress_completion();
    CREATE TRIGGER lab_progress_completion_changed AFTER UPDATE OF completed, user_id, lab_id ON lab_progress
      FOR EACH ROW
      WHEN (OLD.completed IS DISTINCT FROM NEW.completed
            OR (OLD.completed AND (OLD.user_id, OLD.lab_id) IS DISTINCT FROM (NEW.user_id, NEW.lab_id)))
      EXECUTE FUNCTION lab_progress_completion();
    CREATE TRIGGER lab_progress_completion_deleted AFTER DELETE ON lab_progress
      FOR EACH ROW WHEN (OLD.completed) EXECUTE FUNCTION lab_progress_completion();

    -- --- a lab shown, hidden, moved or deleted: every learner who completed it, in one statement ---

    CREATE FUNCTION lab_completion() RETURNS trigger LANGUAGE plpgsql AS $$
    DECLARE
      counted_before boolean := TG_OP <> 'INSERT' AND OLD.visibility;
      counted_after boolean := TG_OP = 'UPDATE' AND NEW.visibility;
      moved boolean := TG_OP = 'UPDATE' AND OLD.course_id IS DISTINCT FROM NEW.course_id;
    BEGIN
      IF counted_before AND (moved OR NOT counted_after) THEN
        UPDATE course_completion_tallies t SET completed_labs = t.completed_labs - 1
          FROM lab_progress p
         WHERE p.lab_id = OLD.id AND p.completed AND t.user_id = p.user_id AND t.course_id = OLD.course_id;
      END IF;
      IF counted_after AND (moved OR NOT counted_before) THEN
        INSERT INTO course_completion_tallies AS t (user_id, course_id, completed_labs)
        SELECT p.user_id, NEW.course_id, 1 FROM lab_progress p WHERE p.lab_id = NEW.id AND p.completed
        ON CONFLICT (user_id, course_id) DO UPDATE SET completed_labs = t.completed_labs + 1;
      END IF;
      -- a BEFORE DELETE trigger lets the delete go on only by returning the row
      RETURN CASE WHEN TG_OP = 'DELETE' THEN OLD END;
    END $$;
    CREATE TRIGGER lab_completion_changed AFTER UPDATE OF visibility, course_id ON labs
      FOR EACH ROW WHEN (OLD.visibility IS DISTINCT FROM NEW.visibility OR OLD.course_id IS DISTINCT FROM NEW.course_id)
      EXECUTE FUNCTION lab_completion();
    -- before the row goes, while its lab_progress still says who completed it
    CREATE TRIGGER lab_completion_deleted BEFORE DELETE ON labs
      FOR EACH ROW WHEN (OLD.visibility) EXECUTE FUNCTION lab_completion();

    -- the number of visible labs changed: the course (or both, for a lab moved) counted again once its
    -- tallies are adjusted (lab_completion_changed fires first, by name)
    CREATE FUNCTION lab_recount() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_OP <> 'INSERT' THEN PERFORM recount_course_completion(OLD.course_id); END IF;
      IF TG_OP = 'INSERT' OR (TG_OP = 'UPDATE' AND OLD.course_id IS DISTINCT FROM NEW.course_id) THEN
        PERFORM recount_course_completion(NEW.course_id);
      END IF;
      RETURN NULL;
    END $$;
    CREATE TRIGGER lab_recount_added AFTER INSERT ON labs
      FOR EACH ROW WHEN (NEW.visibility) EXECUTE FUNCTION lab_recount();
    CREATE TRIGGER lab_recount_changed AFTER UPDATE OF visibility, course_id ON labs
      FOR EACH ROW WHEN (OLD.visibility IS DISTINCT FROM NEW.visibility OR OLD.course_id IS DISTINCT FROM NEW.course_id)
      EXECUTE FUNCTION lab_recount();
    CREATE TRIGGER lab_recount_deleted AFTER DELETE ON labs
      FOR EACH ROW WHEN (OLD.visibility) EXECUTE FUNCTION lab_recount();

    -- --- completion is the videos' and the labs' ---

    CREATE OR REPLACE FUNCTION recount_course_completion(p_course uuid) RETURNS void LANGUAGE sql AS $$
      INSERT INTO course_completion_counts AS k (course_id, assigned, completed)
      SELECT c.id,
             (SELECT count(*) FROM course_completion_tallies t WHERE t.course_id = c.id AND t.assigned),
             (SELECT count(*) FROM course_completion_tallies t
               WHERE t.course_id = c.id AND t.assigned
                 AND course_done(t.completed_videos, t.completed_labs, n.videos, n.labs))
        FROM courses c
        CROSS JOIN (SELECT course_visible_videos(p_course) AS videos, course_visible_labs(p_course) AS labs) n
       WHERE c.id = p_course
      ON CONFLICT (course_id) DO UPDATE SET assigned = EXCLUDED.assigned, completed = EXCLUDED.completed
    $$;

    CREATE OR REPLACE FUNCTION course_completion_tally_changed() RETURNS trigger LANGUAGE plpgsql AS $$
    DECLARE
      course uuid := CASE WHEN TG_OP = 'DELETE' THEN OLD.course_id ELSE NEW.course_id END;
      visible_videos integer := course_visible_videos(course);
      visible_labs integer := course_visible_labs(course);
      assigned_delta integer := (TG_OP <> 'DELETE' AND NEW.assigned)::integer - (TG_OP <> 'INSERT' AND OLD.assigned)::integer;
      completed_delta integer :=
        (TG_OP <> 'DELETE' AND NEW.assigned
          AND course_done(NEW.completed_videos, NEW.completed_labs, visible_videos, visible_labs))::integer
        - (TG_OP <> 'INSERT' AND OLD.assigned
          AND course_done(OLD.completed_videos, OLD.completed_labs, visible_videos, visible_labs))::integer;
    BEGIN
      IF assigned_delta = 0 AND completed_delta = 0 THEN RETURN NULL; END IF;
      INSERT INTO course_completion_counts AS k (course_id, assigned, completed)
      SELECT c.id, assigned_delta, completed_delta FROM courses c WHERE c.id = course
      ON CONFLICT (course_id) DO UPDATE
        SET assigned = k.assigned + EXCLUDED.assigned, completed = k.completed + EXCLUDED.completed;
      RETURN NULL;
    END $$;
    DROP TRIGGER course_completion_tally_changed ON course_completion_tallies;
    CREATE TRIGGER course_completion_tally_changed
      AFTER INSERT OR DELETE OR UPDATE OF completed_videos, completed_labs, assigned
      ON course_completion_tallies FOR EACH ROW EXECUTE FUNCTION course_completion_tally_changed();

    SELECT recount_course_completion(id) FROM courses;
  `)
}

export const down: MigrationFn = async ({ context: sql }) => {
  await sql(`
    DROP TRIGGER IF EXISTS lab_recount_deleted ON labs;
    DROP TRIGGER IF EXISTS lab_recount_changed ON labs;
    DROP TRIGGER IF EXISTS lab_recount_added ON labs;
    DROP TRIGGER IF EXISTS lab_completion_deleted ON labs;
    DROP TRIGGER IF EXISTS lab_completion_changed ON labs;
    DROP TRIGGER IF EXISTS lab_exercise_removal ON lab_exercises;
    DROP TRIGGER IF EXISTS lab_exercise_progress_deleted ON lab_exercises;
    DROP TRIGGER IF EXISTS lab_exercise_progress_changed ON lab_exercises;
    DROP TRIGGER IF EXISTS lab_exercise_progress_added ON lab_exercises;
    DROP TRIGGER IF EXISTS lab_attempt_progress_deleted ON lab_attempts;
    DROP TRIGGER IF EXISTS lab_attempt_progress_changed ON lab_attempts;
    DROP TRIGGER IF EXISTS lab_attempt_progress ON lab_attempts;
    DROP TRIGGER IF EXISTS lab_attempt_holds_lab ON lab_attempts;
    DROP TABLE IF EXISTS lab_progress;

    CREATE OR REPLACE FUNCTION recount_course_completion(p_course uuid) RETURNS void LANGUAGE sql AS $$
      INSERT INTO course_completion_counts AS k (course_id, assigned, completed)
      SELECT c.id,
             (SELECT count(*) FROM course_completion_tallies t WHERE t.course_id = c.id AND t.assigned),
             (SELECT count(*) FROM course_completion_tallies t
               WHERE t.course_id = c.id AND t.assigned AND n.videos > 0 AND t.completed_videos = n.videos)
        FROM courses c CROSS JOIN (SELECT course_visible_videos(p_course) AS videos) n
       WHERE c.id = p_course
      ON CONFLICT (course_id) DO UPDATE SET assigned = EXCLUDED.assigned, completed = EXCLUDED.completed
    $$;
    CREATE OR REPLACE FUNCTION course_completion_tally_changed() RETURNS trigger LANGUAGE plpgsql AS $$
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
    DROP TRIGGER IF EXISTS course_completion_tally_changed ON course_completion_tallies;
    ALTER TABLE course_completion_tallies DROP COLUMN IF EXISTS completed_labs;
    CREATE TRIGGER course_completion_tally_changed AFTER INSERT OR DELETE OR UPDATE OF completed_videos, assigned
      ON course_completion_tallies FOR EACH ROW EXECUTE FUNCTION course_completion_tally_changed();

    DROP FUNCTION IF EXISTS lab_recount(), lab_completion(), lab_progress_completion(),
      tally_completed_lab(uuid, uuid, integer), lab_exercise_removal(), lab_exercise_progress(),
      settle_lab_completion(uuid), hold_lab(uuid), lab_attempt_progress(), lab_attempt_holds_lab(),
      recount_lab(uuid), recount_lab_progress(uuid, uuid), course_visible_labs(uuid),
      course_done(integer, integer, integer, integer), lab_done(integer, integer);

    SELECT recount_course_completion(id) FROM courses;
  `)
}
