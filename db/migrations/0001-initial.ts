import type { MigrationFn } from '#db/migration.ts'

// The whole first data model in one migration, written as SQL so
// that every constraint and index is visible in one place. Later changes get their own files.
export const up: MigrationFn = async ({ context: sql }) => {
  await sql(`
    CREATE EXTENSION IF NOT EXISTS citext;

    CREATE TABLE settings (
      key text PRIMARY KEY,
      value jsonb NOT NULL,
      updated_at timestamptz NOT NULL DEFAULT now()
    );

    CREATE TABLE roles (
      r_id smallint PRIMARY KEY,
      name text NOT NULL UNIQUE
    );
    INSERT INTO roles (r_id, name) VALUES (1, 'superadmin'), (2, 'learner'), (3, 'admin'), (4, 'coach');

    CREATE TABLE users (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      first_name text NOT NULL,
      last_name text NOT NULL DEFAULT '',
      user_name citext NOT NULL,
      email citext NOT NULL,
      password_hash text,
      role_id smallint NOT NULL DEFAULT 2 REFERENCES roles (r_id),
      -- bumped on a password change or "log out everywhere": tokens carry it and older ones stop working
      token_version integer NOT NULL DEFAULT 0,
      external_id text,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      CONSTRAINT users_email_unique UNIQUE (email),
      CONSTRAINT users_user_name_unique UNIQUE (user_name),
      CONSTRAINT users_external_id_unique UNIQUE (external_id)
    );
    CREATE INDEX users_role_idx ON users (role_id, created_at);

    -- Every uploaded file, wherever the storage driver keeps it: keys are random, the name is metadata.
    CREATE TABLE files (
      key text PRIMARY KEY,
      name text NOT NULL,
      content_type text NOT NULL,
      size integer NOT NULL CHECK (size >= 0),
      purpose text NOT NULL CHECK (purpose IN ('course_image', 'program_image', 'document', 'assessment')),
      uploaded_by uuid REFERENCES users (id) ON DELETE SET NULL,
      created_at timestamptz NOT NULL DEFAULT now()
    );

    CREATE TABLE courses (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      title text NOT NULL CHECK (length(btrim(title)) > 0),
      description text NOT NULL DEFAULT '',
      image_key text REFERENCES files (key) ON DELETE SET NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE INDEX courses_title_idx ON courses (lower(title));

    -- A content entry is a video (embedUrl) or a file (document or scenario).
    CREATE TABLE content_entries (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      course_id uuid NOT NULL REFERENCES courses (id) ON DELETE CASCADE,
      kind text NOT NULL CHECK (kind IN ('video', 'document', 'scenario')),
      order_id integer NOT NULL DEFAULT 0 CHECK (order_id >= 0),
      title text NOT NULL DEFAULT '',
      description text NOT NULL DEFAULT '',
      visibility boolean NOT NULL DEFAULT true,
      preview boolean NOT NULL DEFAULT false,
      embed_url text,
      duration integer CHECK (duration IS NULL OR duration >= 0),
      file_key text REFERENCES files (key) ON DELETE RESTRICT,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      CONSTRAINT content_entries_shape CHECK (
        (kind = 'video' AND embed_url IS NOT NULL AND file_key IS NULL)
        OR (kind <> 'video' AND file_key IS NOT NULL AND embed_url IS NULL AND preview = false)
      ),
      -- lets child tables reference (id, course_id) so a row can never point across courses
      CONSTRAINT content_entries_id_course_unique UNIQUE (id, course_id)
    );
    CREATE INDEX content_entries_course_idx ON content_entries (course_id, kind, order_id);

    CREATE TABLE video_prerequisites (
      video_id uuid NOT NULL,
      prerequisite_id uuid NOT NULL,
      course_id uuid NOT NULL,
      PRIMARY KEY (video_id, prerequisite_id),
      FOREIGN KEY (video_id, course_id) REFERENCES content_entries (id, course_id) ON DELETE CASCADE,
      FOREIGN KEY (prerequisite_id, course_id) REFERENCES content_entries (id, course_id) ON DELETE CASCADE,
      CHECK (video_id <> prerequisite_id)
    );
    CREATE INDEX video_prerequisites_prerequisite_idx ON video_prerequisites (prerequisite_id);

    -- Real viewing: one bit per second of the video that was played, so seconds are counted once
    -- and a heartbeat is one INSERT ... ON CONFLICT that ORs its bits in (no read-modify-write).
    CREATE TABLE video_progress (
      user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
      video_id uuid NOT NULL,
      course_id uuid NOT NULL,
      watched bit varying NOT NULL DEFAULT B'',
      watched_seconds integer NOT NULL DEFAULT 0 CHECK (watched_seconds >= 0),
      last_position integer NOT NULL DEFAULT 0 CHECK (last_position >= 0),
      completed boolean NOT NULL DEFAULT false,
      completed_at timestamptz,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (user_id, video_id),
      FOREIGN KEY (video_id, course_id) REFERENCES content_entries (id, course_id) ON DELETE CASCADE
    );
    CREATE INDEX video_progress_course_idx ON video_progress (user_id, course_id);

    -- The old client's player heartbeat (videoAudit): furthest progress and last view per user and video.
    CREATE TABLE video_audits (
      user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
      video_id uuid NOT NULL,
      course_id uuid NOT NULL,
      video_duration integer NOT NULL CHECK (video_duration >= 0),
      video_progress integer NOT NULL CHECK (video_progress >= 0),
      last_viewed_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (user_id, video_id),
      FOREIGN KEY (video_id, course_id) REFERENCES content_entries (id, course_id) ON DELETE CASCADE
    );
    CREATE INDEX video_audits_last_viewed_idx ON video_audits (last_viewed_at);
    CREATE INDEX video_audits_course_last_viewed_idx ON video_audits (course_id, last_viewed_at);

    -- Access-log pings (postAccessLog): appended, one row per ping.
    CREATE TABLE access_log_pings (
      id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
      page_name text NOT NULL,
      recorded_at timestamptz NOT NULL DEFAULT now(),
      course_id uuid REFERENCES courses (id) ON DELETE CASCADE,
      video_id uuid REFERENCES content_entries (id) ON DELETE CASCADE
    );
    CREATE INDEX access_log_pings_recorded_idx ON access_log_pings (recorded_at);
    CREATE INDEX access_log_pings_course_recorded_idx ON access_log_pings (course_id, recorded_at);
    CREATE INDEX access_log_pings_user_idx ON access_log_pings (user_id, recorded_at);

    CREATE TABLE assessment_uploads (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
      course_id uuid NOT NULL,
      scenario_id uuid NOT NULL,
      file_key text NOT NULL UNIQUE REFERENCES files (key) ON DELETE RESTRICT,
      created_at timestamptz NOT NULL DEFAULT now(),
      FOREIGN KEY (scenario_id, course_id) REFERENCES content_entries (id, course_id) ON DELETE CASCADE
    );
    CREATE INDEX assessment_uploads_user_course_idx ON assessment_uploads (user_id, course_id);
    CREATE INDEX assessment_uploads_created_idx ON assessment_uploads (created_at);

    CREATE TABLE programs (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      title text NOT NULL CHECK (length(btrim(title)) > 0),
      description text NOT NULL DEFAULT '',
      path text NOT NULL DEFAULT '',
      learning_path text NOT NULL DEFAULT '',
      duration text NOT NULL DEFAULT '',
      price numeric(10, 2) CHECK (price IS NULL OR price >= 0),
      image_key text REFERENCES files (key) ON DELETE SET NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now()
    );

    CREATE TABLE program_courses (
      program_id uuid NOT NULL REFERENCES programs (id) ON DELETE CASCADE,
      course_id uuid NOT NULL REFERENCES courses (id) ON DELETE CASCADE,
      position integer NOT NULL CHECK (position >= 0),
      PRIMARY KEY (program_id, course_id),
      CONSTRAINT program_courses_position_unique UNIQUE (program_id, position) DEFERRABLE INITIALLY DEFERRED
    );
    CREATE INDEX program_courses_course_idx ON program_courses (course_id);

    CREATE TABLE course_assignments (
      user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
      course_id uuid NOT NULL REFERENCES courses (id) ON DELETE CASCADE,
      assigned_by uuid REFERENCES users (id) ON DELETE SET NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (user_id, course_id)
    );
    CREATE INDEX course_assignments_course_idx ON course_assignments (course_id);

    CREATE TABLE program_assignments (
      user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
      program_id uuid NOT NULL REFERENCES programs (id) ON DELETE CASCADE,
      assigned_by uuid REFERENCES users (id) ON DELETE SET NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (user_id, program_id)
    );
    CREATE INDEX program_assignments_program_idx ON program_assignments (program_id);

    -- Reset and invitation links: only a hash of the token is kept.
    CREATE TABLE password_reset_tokens (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
      token_hash text NOT NULL UNIQUE,
      purpose text NOT NULL CHECK (purpose IN ('reset', 'invite')),
      expires_at timestamptz NOT NULL,
      used_at timestamptz,
      created_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE INDEX password_reset_tokens_user_idx ON password_reset_tokens (user_id);

    -- Bridge tokens are single use: their jti is kept until well after they expire.
    CREATE TABLE bridge_token_uses (
      jti text PRIMARY KEY,
      expires_at timestamptz NOT NULL,
      used_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE INDEX bridge_token_uses_expires_idx ON bridge_token_uses (expires_at);
  `)
}

export const down: MigrationFn = async ({ context: sql }) => {
  await sql(`
    DROP TABLE IF EXISTS bridge_token_uses, password_reset_tokens, program_assignments,
      course_assignments, program_courses, programs, assessment_uploads, access_log_pings,
      video_audits, video_progress, video_prerequisites, content_entries, courses, files, users,
      roles, settings CASCADE;
  `)
}
