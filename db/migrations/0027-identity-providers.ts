import type { MigrationFn } from '#db/migration.ts'

// Company sign-in through OpenID Connect (docs/operations.md#company-sign-in, ADR 041).
//
// identity_providers: one company's provider. `slug` names it in the portal's addresses (/sso/acme), `issuer`
// is where its discovery document is read. `client_secret` is kept sealed (AES-256-GCM under a key that is not in
// the database, so a backup or a dump does not carry it). `domains` are the email domains it serves: an email
// there may be linked or given an account, and a `required` provider turns off passwords for them.
// `create_accounts`: whether people with no portal account get one (as `account_role`, learners only for now),
// limited to members of `account_groups` when that is not empty. `groups_claim`: the ID token's claim that
// lists the person's groups, which the rules map to programs and courses.
//
// identity_provider_rules: group → program or course. identity_grants: the assignments the rules made for a
// person, so that a rule taken away takes away only what it gave, never an assignment an admin made.
//
// user_identities: a person at a provider (its subject) and the portal account it signs in to, found by the
// subject first; the email and groups last seen, for the mapping's preview.
//
// sso_logins: sign-ins in flight, by the hash of their `state`: the nonce, the PKCE verifier and where to go
// after. A row is taken (deleted) by the callback that uses it, so a replayed callback finds nothing.
//
// sso_sessions: portal sessions opened through a provider (the portal token's session id), with the provider's
// subject and session id, so a back-channel logout ends them, and the ID token a sign-out hands back.
//
// sign_in_events: a sign-in through a provider is recorded with the provider and subject; `refused` with the
// reason when the portal refused it.
export const up: MigrationFn = async ({ context: sql }) => {
  await sql(`
    CREATE TABLE identity_providers (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      slug text NOT NULL UNIQUE CHECK (slug ~ '^[a-z0-9](?:[a-z0-9-]{0,38}[a-z0-9])?$'),
      name text NOT NULL CHECK (length(btrim(name)) BETWEEN 1 AND 80),
      issuer text NOT NULL,
      client_id text NOT NULL,
      client_secret text NOT NULL,
      scopes text NOT NULL DEFAULT 'openid email profile',
      domains citext[] NOT NULL DEFAULT '{}',
      required boolean NOT NULL DEFAULT false,
      create_accounts boolean NOT NULL DEFAULT false,
      account_role smallint NOT NULL DEFAULT 2 REFERENCES roles (r_id) CHECK (account_role = 2),
      account_groups text[] NOT NULL DEFAULT '{}',
      groups_claim text NOT NULL DEFAULT 'groups',
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now()
    );

    CREATE TABLE identity_provider_rules (
      id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      provider_id uuid NOT NULL REFERENCES identity_providers (id) ON DELETE CASCADE,
      group_name text NOT NULL CHECK (length(group_name) BETWEEN 1 AND 256),
      program_id uuid REFERENCES programs (id) ON DELETE CASCADE,
      course_id uuid REFERENCES courses (id) ON DELETE CASCADE,
      CHECK (num_nonnulls(program_id, course_id) = 1),
      UNIQUE NULLS NOT DISTINCT (provider_id, group_name, program_id, course_id)
    );
    CREATE INDEX identity_provider_rules_program_idx ON identity_provider_rules (program_id) WHERE program_id IS NOT NULL;
    CREATE INDEX identity_provider_rules_course_idx ON identity_provider_rules (course_id) WHERE course_id IS NOT NULL;

    CREATE TABLE user_identities (
      provider_id uuid NOT NULL REFERENCES identity_providers (id) ON DELETE CASCADE,
      subject text NOT NULL,
      user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
      email citext,
      groups text[] NOT NULL DEFAULT '{}',
      first_sign_in_at timestamptz NOT NULL DEFAULT now(),
      last_sign_in_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (provider_id, subject),
      UNIQUE (provider_id, user_id)
    );
    CREATE INDEX user_identities_user_idx ON user_identities (user_id);

    CREATE TABLE identity_grants (
      provider_id uuid NOT NULL REFERENCES identity_providers (id) ON DELETE CASCADE,
      user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
      program_id uuid REFERENCES programs (id) ON DELETE CASCADE,
      course_id uuid REFERENCES courses (id) ON DELETE CASCADE,
      CHECK (num_nonnulls(program_id, course_id) = 1),
      UNIQUE NULLS NOT DISTINCT (provider_id, user_id, program_id, course_id)
    );
    CREATE INDEX identity_grants_user_idx ON identity_grants (user_id);
    CREATE INDEX identity_grants_program_idx ON identity_grants (program_id) WHERE program_id IS NOT NULL;
    CREATE INDEX identity_grants_course_idx ON identity_grants (course_id) WHERE course_id IS NOT NULL;

    CREATE TABLE sso_logins (
      state_hash text PRIMARY KEY,
      provider_id uuid NOT NULL REFERENCES identity_providers (id) ON DELETE CASCADE,
      nonce text NOT NULL,
      code_verifier text NOT NULL,
      return_to text NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE INDEX sso_logins_created_idx ON sso_logins (created_at);

    CREATE TABLE sso_sessions (
      session_id text PRIMARY KEY,
      provider_id uuid NOT NULL REFERENCES identity_providers (id) ON DELETE CASCADE,
      subject text NOT NULL,
      provider_session text,
      id_token text,
      expires_at timestamptz NOT NULL
    );
    CREATE INDEX sso_sessions_subject_idx ON sso_sessions (provider_id, subject);
    CREATE INDEX sso_sessions_provider_session_idx ON sso_sessions (provider_id, provider_session)
      WHERE provider_session IS NOT NULL;
    CREATE INDEX sso_sessions_expires_idx ON sso_sessions (expires_at);

    ALTER TABLE sign_in_events
      ADD COLUMN provider_id uuid REFERENCES identity_providers (id) ON DELETE SET NULL,
      ADD COLUMN subject text,
      ADD COLUMN reason text,
      DROP CONSTRAINT sign_in_events_outcome_check,
      ADD CONSTRAINT sign_in_events_outcome_check
        CHECK (outcome IN ('checking', 'success', 'wrong_password', 'throttled', 'password_changed', 'disabled', 'refused'));
    CREATE INDEX sign_in_events_provider_idx ON sign_in_events (provider_id, id) WHERE provider_id IS NOT NULL;
  `)
}

export const down: MigrationFn = async ({ context: sql }) => {
  await sql(`
    DELETE FROM sign_in_events WHERE outcome = 'refused';
    ALTER TABLE sign_in_events
      DROP CONSTRAINT sign_in_events_outcome_check,
      ADD CONSTRAINT sign_in_events_outcome_check
        CHECK (outcome IN ('checking', 'success', 'wrong_password', 'throttled', 'password_changed', 'disabled')),
      DROP COLUMN provider_id, DROP COLUMN subject, DROP COLUMN reason;
    DROP TABLE IF EXISTS sso_sessions;
    DROP TABLE IF EXISTS sso_logins;
    DROP TABLE IF EXISTS identity_grants;
    DROP TABLE IF EXISTS user_identities;
    DROP TABLE IF EXISTS identity_provider_rules;
    DROP TABLE IF EXISTS identity_providers;
  `)
}
