import type { MigrationFn } from '#db/migration.ts'

// Mail that is sent later, by whichever process sends the queue (`portal serve`, `portal mail send-due`).
//
// A row says what to send and to whom, never the message itself: an invitation's set-password link is
// made when the mail is sent, so the queue holds no secret. Rows are written in the transaction of the
// work that asks for the mail (an import's batch), so they exist exactly when that work does.
//
// A sender claims due rows (status sending, claimed_at/claimed_by: a lease), sends, and marks each one
// sent at once; a failure goes back to pending with a later next_attempt_at, or to failed after the
// last attempt. A lease older than a few minutes belongs to a process that died mid-send and may be
// claimed again. At most one pending or sending row per kind and user (the partial unique index), so
// asking twice before the first is sent queues one mail.
export const up: MigrationFn = async ({ context: sql }) => {
  await sql(`
    CREATE TABLE mail_queue (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      kind text NOT NULL CHECK (kind IN ('invitation')),
      user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
      status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'sending', 'sent', 'failed', 'cancelled')),
      attempts integer NOT NULL DEFAULT 0 CHECK (attempts >= 0),
      next_attempt_at timestamptz NOT NULL DEFAULT now(),
      last_error text,
      created_at timestamptz NOT NULL DEFAULT now(),
      sent_at timestamptz,
      claimed_at timestamptz,
      claimed_by text,
      CHECK ((status = 'sending') = (claimed_by IS NOT NULL)),
      CHECK ((status = 'sent') = (sent_at IS NOT NULL))
    );
    CREATE UNIQUE INDEX mail_queue_open_idx ON mail_queue (kind, user_id) WHERE status IN ('pending', 'sending');
    CREATE INDEX mail_queue_due_idx ON mail_queue (next_attempt_at) WHERE status = 'pending';
    CREATE INDEX mail_queue_claimed_idx ON mail_queue (claimed_at);
    CREATE INDEX mail_queue_user_idx ON mail_queue (user_id);
    CREATE INDEX mail_queue_recent_idx ON mail_queue (created_at DESC);
  `)
}

export const down: MigrationFn = async ({ context: sql }) => {
  await sql('DROP TABLE IF EXISTS mail_queue;')
}
