import type { MigrationFn } from '#db/migration.ts'

// SQL labs: a lab belongs to a course beside its videos and documents, is made from a folder an author
// keeps (lab.yaml, the dataset's SQL and its CSV files, all kept here so the folder can be written back),
// and is graded on a database of its own in the labs sandbox (app/modules/labs/sandbox.server.ts).
//
// - labs: `database` names the built copy learners query; `state_copies` the copies that exercises changing
//   data or tables use one attempt at a time; `tables` the dataset's tables and columns, as the lab page
//   lists them. Set when the lab is built.
// - lab_exercises: keyed by the author's `key`, so that importing the folder again keeps the attempts of the
//   exercises whose key stays. `expected` is what grading compares with: the solution's result (check
//   `result`), or the verify queries' results after the solution (check `state`), taken when the lab is built.
// - lab_attempts: every attempt, with its SQL, what it returned (capped) and how long it took.
// - lab_sandbox: the password of the sandbox's login role, made on first use, shared by every instance.
export const up: MigrationFn = async ({ context: sql }) => {
  await sql(`
    CREATE TABLE labs (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      course_id uuid NOT NULL REFERENCES courses (id) ON DELETE CASCADE,
      title text NOT NULL CHECK (length(btrim(title)) > 0),
      description text NOT NULL DEFAULT '',
      minutes integer NOT NULL DEFAULT 15 CHECK (minutes > 0),
      dataset_name text NOT NULL,
      dataset_sql text NOT NULL,
      order_id integer NOT NULL DEFAULT 0 CHECK (order_id >= 0),
      visibility boolean NOT NULL DEFAULT true,
      database text,
      state_copies text[] NOT NULL DEFAULT '{}',
      tables jsonb NOT NULL DEFAULT '[]',
      built_at timestamptz,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      UNIQUE (course_id, title)
    );
    CREATE INDEX labs_course_idx ON labs (course_id, order_id);

    CREATE TABLE lab_files (
      lab_id uuid NOT NULL REFERENCES labs (id) ON DELETE CASCADE,
      name text NOT NULL,
      content bytea NOT NULL,
      PRIMARY KEY (lab_id, name)
    );

    CREATE TABLE lab_exercises (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      lab_id uuid NOT NULL REFERENCES labs (id) ON DELETE CASCADE,
      key text NOT NULL,
      position integer NOT NULL CHECK (position >= 0),
      title text NOT NULL,
      prompt text NOT NULL,
      solution text NOT NULL,
      check_kind text NOT NULL CHECK (check_kind IN ('result', 'state')),
      verify text[] NOT NULL DEFAULT '{}',
      order_rule text NOT NULL CHECK (order_rule IN ('auto', 'strict', 'any')),
      column_rule text NOT NULL CHECK (column_rule IN ('names', 'positions')),
      allow text[] NOT NULL,
      points integer NOT NULL DEFAULT 1 CHECK (points > 0),
      hints text[] NOT NULL DEFAULT '{}',
      expected jsonb,
      ordered boolean NOT NULL DEFAULT false,
      UNIQUE (lab_id, key)
    );

    CREATE TABLE lab_attempts (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      exercise_id uuid NOT NULL REFERENCES lab_exercises (id) ON DELETE CASCADE,
      user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
      sql text NOT NULL,
      passed boolean NOT NULL,
      message text NOT NULL,
      result jsonb,
      duration_ms integer NOT NULL CHECK (duration_ms >= 0),
      created_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE INDEX lab_attempts_exercise_user_idx ON lab_attempts (exercise_id, user_id, created_at);
    CREATE INDEX lab_attempts_user_idx ON lab_attempts (user_id, created_at);

    CREATE TABLE lab_sandbox (
      role text PRIMARY KEY,
      password text NOT NULL
    );
  `)
}

export const down: MigrationFn = async ({ context: sql }) => {
  await sql('DROP TABLE IF EXISTS lab_sandbox, lab_attempts, lab_exercises, lab_files, labs;')
}
