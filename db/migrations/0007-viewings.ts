import type { MigrationFn } from '#db/migration.ts'

// Viewing, kept current for the access log and the dashboard at any size.
//
// video_viewings holds one row per learner and video that was ever viewed, through a progress heartbeat
// or a video audit: its last_viewed_at is the latest of the two. Triggers on both source tables keep it
// current, so every write path (the /api, the CLI, the demo seed, a bulk load) agrees with the report.
// To spare the heartbeat, a newer view moves last_viewed_at only once it is a minute past the stored one.
//
// A trigger on video_viewings keeps three small tallies that the report's pager and the dashboard read
// instead of counting millions of rows; they change only when a viewing moves to another UTC day:
//   viewing_day_counts  how many viewings were last viewed on each day, per course (the report's total)
//   video_view_days     views per video and day: a learner's first view of a video on a day counts one
//   learner_activity    the last day each learner watched or opened a page (active learners)
export const up: MigrationFn = async ({ context: sql }) => {
  await sql(`
    CREATE TABLE video_viewings (
      user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
      video_id uuid NOT NULL,
      course_id uuid NOT NULL,
      last_viewed_at timestamptz NOT NULL,
      PRIMARY KEY (user_id, video_id),
      FOREIGN KEY (video_id, course_id) REFERENCES content_entries (id, course_id) ON DELETE CASCADE
    );
    CREATE INDEX video_viewings_recent_idx ON video_viewings (last_viewed_at DESC, user_id, video_id);
    CREATE INDEX video_viewings_course_recent_idx
      ON video_viewings (course_id, last_viewed_at DESC, user_id, video_id);

    CREATE TABLE viewing_day_counts (
      course_id uuid NOT NULL REFERENCES courses (id) ON DELETE CASCADE,
      day date NOT NULL,
      viewings integer NOT NULL,
      PRIMARY KEY (course_id, day)
    );

    CREATE TABLE video_view_days (
      video_id uuid NOT NULL REFERENCES content_entries (id) ON DELETE CASCADE,
      day date NOT NULL,
      course_id uuid NOT NULL REFERENCES courses (id) ON DELETE CASCADE,
      views integer NOT NULL,
      PRIMARY KEY (video_id, day)
    );
    CREATE INDEX video_view_days_day_idx ON video_view_days (day);

    CREATE TABLE learner_activity (
      user_id uuid PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
      last_active_on date NOT NULL
    );
    CREATE INDEX learner_activity_day_idx ON learner_activity (last_active_on);

    CREATE FUNCTION utc_day(at timestamptz) RETURNS date
      LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$ SELECT (at AT TIME ZONE 'UTC')::date $$;

    -- the latest view of a learner and video from either source, written through to video_viewings
    CREATE FUNCTION record_viewing(p_user uuid, p_video uuid, p_course uuid, p_at timestamptz)
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
           -- a source moved back in time (a correction): the viewing follows it
           OR EXCLUDED.last_viewed_at < v.last_viewed_at
    $$;

    CREATE FUNCTION video_progress_viewed() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      PERFORM record_viewing(NEW.user_id, NEW.video_id, NEW.course_id, NEW.updated_at);
      RETURN NULL;
    END $$;
    CREATE TRIGGER video_progress_viewed AFTER INSERT OR UPDATE OF updated_at ON video_progress
      FOR EACH ROW EXECUTE FUNCTION video_progress_viewed();

    CREATE FUNCTION video_audit_viewed() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      PERFORM record_viewing(NEW.user_id, NEW.video_id, NEW.course_id, NEW.last_viewed_at);
      RETURN NULL;
    END $$;
    CREATE TRIGGER video_audit_viewed AFTER INSERT OR UPDATE OF last_viewed_at ON video_audits
      FOR EACH ROW EXECUTE FUNCTION video_audit_viewed();

    CREATE FUNCTION mark_learner_active(p_user uuid, p_day date) RETURNS void LANGUAGE sql AS $$
      INSERT INTO learner_activity AS a (user_id, last_active_on) VALUES (p_user, p_day)
      ON CONFLICT (user_id) DO UPDATE SET last_active_on = EXCLUDED.last_active_on
        WHERE a.last_active_on < EXCLUDED.last_active_on
    $$;

    CREATE FUNCTION video_viewings_tally() RETURNS trigger LANGUAGE plpgsql AS $$
    DECLARE
      old_day date := CASE WHEN TG_OP <> 'INSERT' THEN utc_day(OLD.last_viewed_at) END;
      new_day date := CASE WHEN TG_OP <> 'DELETE' THEN utc_day(NEW.last_viewed_at) END;
    BEGIN
      IF old_day IS NOT DISTINCT FROM new_day THEN RETURN NULL; END IF;
      IF old_day IS NOT NULL THEN
        -- gone with its course when the course itself is being deleted
        UPDATE viewing_day_counts SET viewings = viewings - 1 WHERE course_id = OLD.course_id AND day = old_day;
      END IF;
      IF new_day IS NOT NULL THEN
        INSERT INTO viewing_day_counts AS c (course_id, day, viewings) VALUES (NEW.course_id, new_day, 1)
        ON CONFLICT (course_id, day) DO UPDATE SET viewings = c.viewings + 1;
        INSERT INTO video_view_days AS d (video_id, day, course_id, views) VALUES (NEW.video_id, new_day, NEW.course_id, 1)
        ON CONFLICT (video_id, day) DO UPDATE SET views = d.views + 1;
        PERFORM mark_learner_active(NEW.user_id, new_day);
      END IF;
      RETURN NULL;
    END $$;
    CREATE TRIGGER video_viewings_tally AFTER INSERT OR DELETE OR UPDATE OF last_viewed_at ON video_viewings
      FOR EACH ROW EXECUTE FUNCTION video_viewings_tally();

    CREATE FUNCTION access_log_ping_active() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      PERFORM mark_learner_active(NEW.user_id, utc_day(NEW.recorded_at));
      RETURN NULL;
    END $$;
    CREATE TRIGGER access_log_ping_active AFTER INSERT ON access_log_pings
      FOR EACH ROW EXECUTE FUNCTION access_log_ping_active();

    -- what is already recorded, counted once
    INSERT INTO video_viewings (user_id, video_id, course_id, last_viewed_at)
    SELECT user_id, video_id, (array_agg(course_id))[1], max(at)
      FROM (SELECT user_id, video_id, course_id, updated_at AS at FROM video_progress
            UNION ALL
            SELECT user_id, video_id, course_id, last_viewed_at FROM video_audits) s
     GROUP BY user_id, video_id;
    INSERT INTO learner_activity AS a (user_id, last_active_on)
    SELECT user_id, max(utc_day(recorded_at)) FROM access_log_pings GROUP BY user_id
    ON CONFLICT (user_id) DO UPDATE SET last_active_on = GREATEST(a.last_active_on, EXCLUDED.last_active_on);

    -- the report reads video_viewings now; these only slowed every heartbeat and audit down
    DROP INDEX IF EXISTS video_progress_updated_idx;
    DROP INDEX IF EXISTS video_progress_course_updated_idx;
    DROP INDEX IF EXISTS video_audits_last_viewed_idx;
    DROP INDEX IF EXISTS video_audits_course_last_viewed_idx;
  `)
}

export const down: MigrationFn = async ({ context: sql }) => {
  await sql(`
    DROP TRIGGER IF EXISTS access_log_ping_active ON access_log_pings;
    DROP TRIGGER IF EXISTS video_audit_viewed ON video_audits;
    DROP TRIGGER IF EXISTS video_progress_viewed ON video_progress;
    DROP TABLE IF EXISTS learner_activity, video_view_days, viewing_day_counts, video_viewings;
    DROP FUNCTION IF EXISTS access_log_ping_active(), video_viewings_tally(), mark_learner_active(uuid, date),
      video_audit_viewed(), video_progress_viewed(), record_viewing(uuid, uuid, uuid, timestamptz), utc_day(timestamptz);
    CREATE INDEX video_progress_updated_idx ON video_progress (updated_at);
    CREATE INDEX video_progress_course_updated_idx ON video_progress (course_id, updated_at);
    CREATE INDEX video_audits_last_viewed_idx ON video_audits (last_viewed_at);
    CREATE INDEX video_audits_course_last_viewed_idx ON video_audits (course_id, last_viewed_at);
  `)
}
