import type { MigrationFn } from '#db/migration.ts'

// Lab attempts in the access log (ADR 037): one row per learner and lab exercise, as video_viewings is one
// per learner and video, kept current by triggers so the report reads a row per line and pages by index.
//
// lab_exercise_results holds, per learner and exercise they attempted, the number of attempts, whether any
// passed and when the last one was made. Attempts by the admin side (trying a lab out) are not folded: the
// access log is the learners', as the video rows are (only learners record progress). The row carries its lab
// and course, so the course filter and the newest-first order come from its own indexes; (lab_id, course_id)
// follows the lab, and the row goes with its exercise, its lab, its course or its learner.
//   lab_attempts inserted     the row is made or moves on: one more attempt, passed once any passed, the
//                             latest time
//   lab_attempts updated or   the pairs the statement touched are counted again from their attempts, and a
//   deleted                   pair with none left loses its row
//
// lab_result_day_counts holds how many rows were last attempted on each UTC day, per course: the report's
// pager reads it for its total, as it reads viewing_day_counts for the video rows. A trigger on the rows keeps
// it, moving a row's count only when its last attempt moves to another day.
export const up: MigrationFn = async ({ context: sql }) => {
  await sql(`
    ALTER TABLE labs ADD CONSTRAINT labs_id_course_unique UNIQUE (id, course_id);

    CREATE TABLE lab_exercise_results (
      user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
      exercise_id uuid NOT NULL REFERENCES lab_exercises (id) ON DELETE CASCADE,
      lab_id uuid NOT NULL,
      course_id uuid NOT NULL,
      attempts integer NOT NULL CHECK (attempts > 0),
      passed boolean NOT NULL,
      last_attempt_at timestamptz NOT NULL,
      PRIMARY KEY (user_id, exercise_id),
      FOREIGN KEY (lab_id, course_id) REFERENCES labs (id, course_id) ON DELETE CASCADE ON UPDATE CASCADE
    );
    CREATE INDEX lab_exercise_results_recent_idx ON lab_exercise_results (last_attempt_at DESC, user_id, exercise_id);
    CREATE INDEX lab_exercise_results_course_recent_idx
      ON lab_exercise_results (course_id, last_attempt_at DESC, user_id, exercise_id);
    -- what deleting an exercise or a lab looks its rows up by
    CREATE INDEX lab_exercise_results_exercise_idx ON lab_exercise_results (exercise_id);
    CREATE INDEX lab_exercise_results_lab_idx ON lab_exercise_results (lab_id, course_id);

    CREATE TABLE lab_result_day_counts (
      course_id uuid NOT NULL REFERENCES courses (id) ON DELETE CASCADE,
      day date NOT NULL,
      results integer NOT NULL,
      PRIMARY KEY (course_id, day)
    );

    -- one attempt more for a learner and exercise
    CREATE FUNCTION lab_attempt_made() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      INSERT INTO lab_exercise_results AS r (user_id, exercise_id, lab_id, course_id, attempts, passed, last_attempt_at)
      SELECT NEW.user_id, NEW.exercise_id, e.lab_id, l.course_id, 1, NEW.passed, NEW.created_at
        FROM lab_exercises e
        JOIN labs l ON l.id = e.lab_id
        JOIN users u ON u.id = NEW.user_id AND u.role_id = 2 -- learners only
       WHERE e.id = NEW.exercise_id
      ON CONFLICT (user_id, exercise_id) DO UPDATE
        SET attempts = r.attempts + 1,
            passed = r.passed OR EXCLUDED.passed,
            last_attempt_at = GREATEST(r.last_attempt_at, EXCLUDED.last_attempt_at);
      RETURN NULL;
    END $$;
    CREATE TRIGGER lab_attempt_made AFTER INSERT ON lab_attempts
      FOR EACH ROW EXECUTE FUNCTION lab_attempt_made();

    -- the learner and exercise pairs given, counted again from their attempts; a pair with none left goes
    CREATE FUNCTION recount_lab_results(p_users uuid[], p_exercises uuid[]) RETURNS void LANGUAGE sql AS $$
      DELETE FROM lab_exercise_results r
       USING unnest(p_users, p_exercises) AS p (user_id, exercise_id)
       WHERE r.user_id = p.user_id AND r.exercise_id = p.exercise_id
         AND NOT EXISTS (SELECT 1 FROM lab_attempts a WHERE a.exercise_id = p.exercise_id AND a.user_id = p.user_id);
      INSERT INTO lab_exercise_results AS r (user_id, exercise_id, lab_id, course_id, attempts, passed, last_attempt_at)
      SELECT a.user_id, a.exercise_id, e.lab_id, l.course_id, count(*), bool_or(a.passed), max(a.created_at)
        FROM (SELECT DISTINCT * FROM unnest(p_users, p_exercises)) AS p (user_id, exercise_id)
        JOIN lab_attempts a ON a.exercise_id = p.exercise_id AND a.user_id = p.user_id
        JOIN lab_exercises e ON e.id = a.exercise_id
        JOIN labs l ON l.id = e.lab_id
        JOIN users u ON u.id = a.user_id AND u.role_id = 2
       GROUP BY a.user_id, a.exercise_id, e.lab_id, l.course_id
      ON CONFLICT (user_id, exercise_id) DO UPDATE
        SET attempts = EXCLUDED.attempts, passed = EXCLUDED.passed, last_attempt_at = EXCLUDED.last_attempt_at
        WHERE (r.attempts, r.passed, r.last_attempt_at)
              IS DISTINCT FROM (EXCLUDED.attempts, EXCLUDED.passed, EXCLUDED.last_attempt_at)
    $$;

    -- once per statement (a cascade deleting a lab's or a learner's attempts is one), over the rows it changed
    CREATE FUNCTION lab_attempts_changed() RETURNS trigger LANGUAGE plpgsql AS $$
    DECLARE
      users uuid[];
      exercises uuid[];
    BEGIN
      IF TG_OP = 'UPDATE' THEN
        SELECT array_agg(user_id), array_agg(exercise_id) INTO users, exercises
          FROM (SELECT user_id, exercise_id FROM old_attempts UNION SELECT user_id, exercise_id FROM new_attempts) p;
      ELSE
        SELECT array_agg(user_id), array_agg(exercise_id) INTO users, exercises
          FROM (SELECT DISTINCT user_id, exercise_id FROM old_attempts) p;
      END IF;
      IF users IS NOT NULL THEN PERFORM recount_lab_results(users, exercises); END IF;
      RETURN NULL;
    END $$;
    CREATE TRIGGER lab_attempts_updated AFTER UPDATE ON lab_attempts
      REFERENCING OLD TABLE AS old_attempts NEW TABLE AS new_attempts
      FOR EACH STATEMENT EXECUTE FUNCTION lab_attempts_changed();
    CREATE TRIGGER lab_attempts_deleted AFTER DELETE ON lab_attempts
      REFERENCING OLD TABLE AS old_attempts
      FOR EACH STATEMENT EXECUTE FUNCTION lab_attempts_changed();

    -- what is already recorded (the triggers above hold lab_attempts against writes until this commits)
    INSERT INTO lab_exercise_results (user_id, exercise_id, lab_id, course_id, attempts, passed, last_attempt_at)
    SELECT a.user_id, a.exercise_id, e.lab_id, l.course_id, count(*), bool_or(a.passed), max(a.created_at)
      FROM lab_attempts a
      JOIN lab_exercises e ON e.id = a.exercise_id
      JOIN labs l ON l.id = e.lab_id
      JOIN users u ON u.id = a.user_id AND u.role_id = 2
     GROUP BY a.user_id, a.exercise_id, e.lab_id, l.course_id;
    INSERT INTO lab_result_day_counts (course_id, day, results)
    SELECT course_id, utc_day(last_attempt_at), count(*) FROM lab_exercise_results GROUP BY 1, 2;

    CREATE FUNCTION lab_results_tally() RETURNS trigger LANGUAGE plpgsql AS $$
    DECLARE
      old_day date := CASE WHEN TG_OP <> 'INSERT' THEN utc_day(OLD.last_attempt_at) END;
      new_day date := CASE WHEN TG_OP <> 'DELETE' THEN utc_day(NEW.last_attempt_at) END;
      old_course uuid := CASE WHEN TG_OP <> 'INSERT' THEN OLD.course_id END;
      new_course uuid := CASE WHEN TG_OP <> 'DELETE' THEN NEW.course_id END;
    BEGIN
      IF old_day IS NOT DISTINCT FROM new_day AND old_course IS NOT DISTINCT FROM new_course THEN RETURN NULL; END IF;
      IF old_day IS NOT NULL THEN
        -- gone with its course when the course itself is being deleted
        UPDATE lab_result_day_counts SET results = results - 1 WHERE course_id = old_course AND day = old_day;
      END IF;
      IF new_day IS NOT NULL THEN
        INSERT INTO lab_result_day_counts AS c (course_id, day, results) VALUES (new_course, new_day, 1)
        ON CONFLICT (course_id, day) DO UPDATE SET results = c.results + 1;
      END IF;
      RETURN NULL;
    END $$;
    CREATE TRIGGER lab_results_tally AFTER INSERT OR DELETE OR UPDATE OF last_attempt_at, course_id
      ON lab_exercise_results FOR EACH ROW EXECUTE FUNCTION lab_results_tally();
  `)
}

export const down: MigrationFn = async ({ context: sql }) => {
  await sql(`
    DROP TRIGGER IF EXISTS lab_attempts_deleted ON lab_attempts;
    DROP TRIGGER IF EXISTS lab_attempts_updated ON lab_attempts;
    DROP TRIGGER IF EXISTS lab_attempt_made ON lab_attempts;
    DROP TABLE IF EXISTS lab_result_day_counts, lab_exercise_results;
    DROP FUNCTION IF EXISTS lab_results_tally(), lab_attempts_changed(), recount_lab_results(uuid[], uuid[]),
      lab_attempt_made();
    ALTER TABLE labs DROP CONSTRAINT IF EXISTS labs_id_course_unique;
  `)
}
