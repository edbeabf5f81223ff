import { generateKeyPairSync, randomBytes } from 'node:crypto'
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { z } from 'zod'
import { isTimeZone } from '#app/modules/access-log/schema.ts'

/** A list of S3 prefixes (s3://bucket/prefix/, separated by commas or spaces), each ending in /. */
const s3Targets = () =>
  z
    .string()
    .default('')
    .transform((v) => v.split(/[\s,]+/).filter(Boolean))
    .refine(
      (targets) =>
        targets.every(
          (t) =>
            /^s3:\/\/[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]\/(\S*\/)?$/.test(t) &&
            !t.includes('//', 5) &&
            !t
              .slice(5)
              .split('/')
              .some((segment) => segment === '.' || segment === '..'),
        ),
      'each target must be s3://bucket/ or s3://bucket/prefix/, ending in /',
    )

// Parsed once, on first use, never at import: a missing variable must not break a module that
// merely imports this one (the CLI, a test, a route that never needs the secret).
const schema = z.object({
  NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
  DATA_DIR: z.string().min(1).default('./data'),
  DATABASE_URL: z.string().url().optional(),
  EMBEDDED_PG_PORT: z.coerce.number().int().min(1).max(65535).default(54320),
  PORT: z.coerce.number().int().min(1).max(65535).default(3000),
  PUBLIC_URL: z.string().url().optional(),
  SESSION_SECRET: z.string().min(16).optional(),
  JWT_SECRET: z.string().min(16).optional(),
  BRIDGE_SECRET: z.string().min(16).optional(),
  // The private key that signs certificates' Open Badges credentials: an RSA key of 2048 bits or more as a
  // PKCS#8 PEM. An env file holds one line, so "\n" written out stands for a line break.
  // The key that seals identity providers' client secrets in the database: 32 bytes, base64 or hex. Unset, one is
  // made once and kept in $DATA_DIR/secrets.json; a backup of the database then holds no readable secret.
  IDENTITY_SECRETS_KEY: z
    .string()
    .trim()
    .refine(
      (v) => /^[0-9a-f]{64}$/i.test(v) || Buffer.from(v, 'base64').length === 32,
      'must be 32 bytes, as 64 hex digits or base64',
    )
    .optional(),
  CERTIFICATE_SIGNING_KEY: z
    .string()
    .transform((v) => v.replace(/\\n/g, '\n').trim())
    .refine(
      (v) => v.startsWith('-----BEGIN PRIVATE KEY-----') && v.endsWith('-----END PRIVATE KEY-----'),
      'must be a PKCS#8 PEM (-----BEGIN PRIVATE KEY----- …)',
    )
    .optional(),
  MARKETING_URL: z.string().url().optional(),
  // Extra hosts allowed in video embeds besides YouTube and Vimeo (comma-separated host[:port]).
  VIDEO_HOSTS: z
    .string()
    .default('')
    .transform((v) =>
      v
        .split(',')
        .map((h) => h.trim().toLowerCase())
        .filter(Boolean),
    ),
  // File storage: S3 (or an S3-compatible server) when S3_BUCKET is set, else DATA_DIR/uploads.
  S3_BUCKET: z.string().min(1).optional(),
  S3_ENDPOINT: z.string().url().optional(),
  S3_REGION: z.string().min(1).default('us-east-1'),
  S3_ACCESS_KEY_ID: z.string().min(1).optional(),
  S3_SECRET_ACCESS_KEY: z.string().min(1).optional(),
  S3_FORCE_PATH_STYLE: z
    .enum(['0', '1', 'true', 'false'])
    .default('0')
    .transform((v) => v === '1' || v === 'true'),
  // S3 prefixes (s3://bucket/prefix/, comma-separated) the admin area may send scheduled exports to; unset,
  // the admin area offers folder destinations only and S3 is for the CLI. Never the uploads bucket.
  EXPORT_S3_TARGETS: s3Targets(),
  // The same for scheduled backups: the S3 prefixes a super admin may choose on the Backups page.
  BACKUP_S3_TARGETS: s3Targets(),
  // Mail: SMTP when SMTP_URL is set (smtp://user:pass@host:587, smtps://…), else .eml files in DATA_DIR/outbox.
  SMTP_URL: z.string().url().optional(),
  MAIL_FROM: z.string().min(3).default('DataPath Academy <no-reply@datapath.example>'),
  // Queued mail (invitations of an import): at most this many sent per minute, across every process.
  MAIL_RATE_PER_MINUTE: z.coerce.number().int().min(1).max(100_000).default(60),
  // The time zone of learners who have not chosen one: where their due dates end and their reminders go.
  DEFAULT_TIME_ZONE: z
    .string()
    .default('UTC')
    .refine(isTimeZone, 'DEFAULT_TIME_ZONE must be an IANA name such as UTC or Europe/Berlin.'),
  // Upload size limits in megabytes.
  UPLOAD_MAX_IMAGE_MB: z.coerce.number().positive().default(5),
  UPLOAD_MAX_DOCUMENT_MB: z.coerce.number().positive().default(50),
  UPLOAD_MAX_ASSESSMENT_MB: z.coerce.number().positive().default(25),
  // The CSV file of a user import sent through the /admin/users/import page.
  UPLOAD_MAX_IMPORT_MB: z.coerce.number().positive().default(20),
  // What one user may have uploaded that nothing uses yet (swept after a day), in megabytes.
  UPLOAD_UNATTACHED_MAX_MB: z.coerce.number().positive().default(200),
  // Behind a reverse proxy that appends to X-Forwarded-For: its last entry is the client's address.
  TRUST_PROXY: z
    .enum(['0', '1', 'true', 'false'])
    .default('0')
    .transform((v) => v === '1' || v === 'true'),
  // On SIGTERM or SIGINT the web server finishes the requests in flight for at most this many seconds (ADR 026).
  DRAIN_SECONDS: z.coerce.number().min(0).max(3600).default(10),
  // Before that, for this many seconds it still takes new connections while /readyz already answers 503, so a
  // load balancer that watches /readyz stops sending before the listener closes (ADR 026).
  DRAIN_DELAY_SECONDS: z.coerce.number().min(0).max(3600).default(0),
  // Database connections per process; the web server divides them among its workers (server/app-server.js).
  DB_POOL_MAX: z.coerce.number().int().min(1).max(1000).default(10),
  // The background job workers' own connections, per process running them (portal serve, portal worker).
  JOBS_POOL_MAX: z.coerce.number().int().min(2).max(100).default(4),
  // How often a worker process looks for jobs whose worker stopped saying it is alive (a process killed
  // mid-job), and refreshes the counts of each queue, in seconds.
  JOBS_CHECK_SECONDS: z.coerce.number().int().min(1).max(3600).default(10),
  // Unpaged /api lists streamed at once per process, each on a pooled connection (listStreamsMax in
  // json-stream.server.ts): unset, half the pool; never more than the pool less one.
  LIST_STREAMS_MAX: z.coerce.number().int().min(1).max(1000).optional(),
  // A statement slower than this is logged (warn) with its duration and a hash of its normalized text.
  SLOW_SQL_MS: z.coerce.number().min(0).default(100),
  LOG_SQL: z
    .enum(['0', '1', 'true', 'false'])
    .default('0')
    .transform((v) => v === '1' || v === 'true'),
  // SQL labs (docs/labs.md). The server the labs' databases are made on, as a role that may create databases
  // and roles; unset, the portal's own server (DATABASE_URL or the embedded one).
  LABS_DATABASE_URL: z.string().url().optional(),
  // How long one attempt may run, all its statements together; a watchdog outside the session cancels it then.
  LABS_TIME_LIMIT_MS: z.coerce.number().int().min(100).max(60_000).default(3000),
  // The most rows and bytes of a result read back from the sandbox, and the longest SQL text taken.
  LABS_MAX_ROWS: z.coerce.number().int().min(10).max(1_000_000).default(10_000),
  LABS_MAX_RESULT_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .default(4 * 1024 * 1024),
  LABS_MAX_SQL_BYTES: z.coerce
    .number()
    .int()
    .min(100)
    .max(1024 * 1024)
    .default(20_000),
  // Gradings at once in one process (beyond: 429), and the sandbox role's connections across every process.
  // Two per process: the lab queries share the machine's cores with the web server, and with four per process
  // 20 learners submitting at once doubled the heartbeats' p99 (BENCH.md, "SQL labs under load").
  LABS_GRADINGS_MAX: z.coerce.number().int().min(1).max(100).default(2),
  LABS_CONNECTIONS: z.coerce.number().int().min(2).max(1000).default(20),
  // Two-session exercises (docs/labs.md): a pair closes after this many seconds without a request from its
  // learner, and this many after it opened whatever happens; at most this many pairs are open in one process
  // (each holds two of the LABS_CONNECTIONS, so a few pairs cannot starve the gradings).
  LABS_SESSIONS_IDLE_SECONDS: z.coerce.number().int().min(1).max(3600).default(180),
  LABS_SESSIONS_LIMIT_SECONDS: z.coerce.number().int().min(5).max(7200).default(900),
  LABS_SESSIONS_MAX: z.coerce.number().int().min(1).max(100).default(4),
})

export type Env = z.infer<typeof schema> & { PUBLIC_URL: string; DATA_DIR: string }

let cached: Env | undefined

export function getEnv(): Env {
  if (cached) return cached
  const parsed = schema.safeParse(process.env)
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')
    throw new Error(`Invalid environment: ${problems}. See .env.example.`)
  }
  const env = parsed.data
  cached = {
    ...env,
    DATA_DIR: path.resolve(env.DATA_DIR),
    PUBLIC_URL: (env.PUBLIC_URL ?? `http://localhost:${env.PORT}`).replace(/\/+$/, ''),
  }
  return cached
}

/** Forget the parsed environment (tests that change process.env). */
export function resetEnvCache() {
  cached = undefined
  secretsCache = undefined
  signingKeyCache = undefined
  identityKeyCache = undefined
}

type Secrets = {
  sessionSecret: string
  jwtSecret: string
  bridgeSecret: string
  /** password of the embedded PostgreSQL superuser */
  databasePassword: string
}

/** What `$DATA_DIR/secrets.json` holds: the secrets, and the certificate signing key once one was needed. */
type StoredSecrets = Partial<Secrets> & { certificateSigningKey?: string; identitySecretsKey?: string }

const secretsFile = () => path.join(getEnv().DATA_DIR, 'secrets.json')

function readStoredSecrets(): StoredSecrets {
  try {
    return JSON.parse(readFileSync(secretsFile(), 'utf8')) as StoredSecrets
  } catch {
    return {} // no file yet
  }
}

function writeStoredSecrets(stored: StoredSecrets) {
  mkdirSync(getEnv().DATA_DIR, { recursive: true })
  writeFileSync(secretsFile(), JSON.stringify(stored, null, 2) + '\n', { mode: 0o600 })
}

let secretsCache: Secrets | undefined

/**
 * Secrets come from the environment; where one is unset they are generated once and kept in
 * `$DATA_DIR/secrets.json` (mode 600) so sessions survive a restart. Production requires them set.
 */
export function getSecrets(): Secrets {
  if (secretsCache) return secretsCache
  const env = getEnv()
  const stored = readStoredSecrets()
  const fromEnv = {
    sessionSecret: env.SESSION_SECRET,
    jwtSecret: env.JWT_SECRET,
    bridgeSecret: env.BRIDGE_SECRET,
  }
  if (env.NODE_ENV === 'production') {
    const missing = Object.entries({
      SESSION_SECRET: fromEnv.sessionSecret,
      JWT_SECRET: fromEnv.jwtSecret,
      BRIDGE_SECRET: fromEnv.bridgeSecret,
    })
      .filter(([, v]) => !v)
      .map(([k]) => k)
    if (missing.length) throw new Error(`${missing.join(', ')} must be set when NODE_ENV=production.`)
  }
  const generate = () => randomBytes(32).toString('base64url')
  const kept: Secrets = {
    sessionSecret: stored.sessionSecret ?? generate(),
    jwtSecret: stored.jwtSecret ?? generate(),
    bridgeSecret: stored.bridgeSecret ?? generate(),
    databasePassword: stored.databasePassword ?? generate(),
  }
  const changed = (Object.keys(kept) as (keyof Secrets)[]).some((k) => stored[k] !== kept[k])
  // the keys made on first use (the signing key, the identity secrets key) stay in the file
  if (changed) writeStoredSecrets({ ...stored, ...kept })
  secretsCache = {
    sessionSecret: fromEnv.sessionSecret ?? kept.sessionSecret,
    jwtSecret: fromEnv.jwtSecret ?? kept.jwtSecret,
    bridgeSecret: fromEnv.bridgeSecret ?? kept.bridgeSecret,
    databasePassword: kept.databasePassword,
  }
  return secretsCache
}

let signingKeyCache: string | undefined

/**
 * The PEM of the key that signs certificates' credentials: `CERTIFICATE_SIGNING_KEY`, or else one made once
 * and kept in `$DATA_DIR/secrets.json` beside the other secrets. Made only when first asked for (making an
 * RSA key takes a few hundred milliseconds, which a portal that issues no certificate need not spend), and
 * not required in production: a key made here and later lost or replaced costs nothing, as every public key
 * ever used stays published and what it signed still verifies.
 */
export function getCertificateSigningKey(): string {
  if (signingKeyCache) return signingKeyCache
  const fromEnv = getEnv().CERTIFICATE_SIGNING_KEY
  if (fromEnv) return (signingKeyCache = fromEnv)
  getSecrets() // the file holds the other secrets before the key joins them
  const stored = readStoredSecrets()
  if (!stored.certificateSigningKey) {
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 })
    stored.certificateSigningKey = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString().trim()
    writeStoredSecrets(stored)
  }
  return (signingKeyCache = stored.certificateSigningKey)
}

let identityKeyCache: Buffer | undefined

/**
 * The key that seals identity providers' client secrets: `IDENTITY_SECRETS_KEY`, or one made on first use and kept
 * in `$DATA_DIR/secrets.json`. Lost or replaced, the sealed secrets cannot be read and must be set again.
 */
export function getIdentitySecretsKey(): Buffer {
  if (identityKeyCache) return identityKeyCache
  const fromEnv = getEnv().IDENTITY_SECRETS_KEY
  if (fromEnv) {
    identityKeyCache = /^[0-9a-f]{64}$/i.test(fromEnv) ? Buffer.from(fromEnv, 'hex') : Buffer.from(fromEnv, 'base64')
    return identityKeyCache
  }
  getSecrets() // the file holds the other secrets before the key joins them
  const stored = readStoredSecrets()
  if (!stored.identitySecretsKey) {
    stored.identitySecretsKey = randomBytes(32).toString('base64')
    writeStoredSecrets(stored)
  }
  return (identityKeyCache = Buffer.from(stored.identitySecretsKey, 'base64'))
}
