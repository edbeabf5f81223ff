// Every queue of background work, in one table: what it is called on the Jobs page, how often a failed
// job is tried again and how long a worker may go quiet before its job counts as lost. A job of a
// queue with a record of its own (a queued mail, an import, an export or backup run) has that record's id as its
// id, so the two are found from each other and a record is never given two jobs; such queues have a
// dead-letter queue (`<name>-gave-up`) whose jobs tell the record its work was given up (retries used
// up, or its worker gone for good), since then no code of ours is running to say so.
//
// The job library (pg-boss) keeps these settings on each queue in the database; `installJobQueue`
// writes them at every migration, so a change here reaches every process.

export const QUEUE_NAMES = [
  'mail',
  'user-import',
  'export-run',
  'export-look',
  'backup-run',
  'backup-look',
  'sign-in-sweep',
  'upload-sweep',
  'certificate-issue',
  'reminder-sweep',
] as const
export type QueueName = (typeof QUEUE_NAMES)[number]

export type QueueSpec = {
  /** on the Jobs page and in `portal jobs list` */
  title: string
  /** tries after the first one; each waits `retryDelay` seconds, doubling with `retryBackoff`, at most `retryDelayMax` */
  retryLimit: number
  retryDelay: number
  retryBackoff: boolean
  retryDelayMax?: number
  /**
   * A running job's worker says it is alive every half of this; one that has not for this long is taken
   * as lost (the process died) and its job tried again. At least 10 seconds.
   */
  heartbeatSeconds?: number
  /** the longest one try may run before it is failed and its work stopped */
  expireInSeconds: number
  /** how long an ended job (done, failed, cancelled) is kept, for the Jobs page and `portal jobs` */
  keepSeconds: number
  /** jobs one worker process runs at once */
  concurrency: number
  /** five-field cron, in UTC: the library sends one job per slot, however many workers run */
  schedule?: string
  /**
   * For a queue whose jobs work on records: the statement that selects the ids of the records waiting on
   * work. Each must have a job; a migration gives one to any that lacks it. Such a queue's records also
   * hear when their work is given up (see above).
   */
  waitingRecords?: string
  /**
   * For a queue whose work the database's triggers write (rows of a table of its own): the channel they
   * notify on when a transaction wrote some. Every worker process listens on it and queues a job at once;
   * the queue's schedule catches what a missed notification left (a worker down at the time).
   */
  wakeChannel?: string
  /** `stately`: at most one job waiting and one running, for a job that does all the work there is each time */
  policy?: 'stately'
}

const DAY = 24 * 60 * 60

/** A scheduled job of the portal's own with no record: not tried again (its next slot is), kept a week. */
const housekeeping = (title: string, schedule: string, expireInSeconds: number): QueueSpec => ({
  title,
  retryLimit: 0,
  retryDelay: 0,
  retryBackoff: false,
  expireInSeconds,
  keepSeconds: 7 * DAY,
  concurrency: 1,
  schedule,
})

type Retries = Pick<QueueSpec, 'retryLimit' | 'retryDelay' | 'retryBackoff' | 'retryDelayMax'>

/**
 * A queue whose jobs work on the records of `table` that wait on work (`waiting`, by their status): its
 * worker says it is alive every 15 seconds, ended jobs are kept a month.
 */
const ofRecords = (
  title: string,
  table: string,
  retries: Retries,
  expireInSeconds: number,
  { waiting = ['queued', 'running'], concurrency = 1 }: { waiting?: string[]; concurrency?: number } = {},
): QueueSpec => ({
  title,
  ...retries,
  heartbeatSeconds: 30,
  expireInSeconds,
  keepSeconds: 30 * DAY,
  concurrency,
  waitingRecords: `SELECT id FROM ${table} WHERE status IN (${waiting.map((status) => `'${status}'`).join(', ')})`,
})

export const QUEUES: Record<QueueName, QueueSpec> = {
  // 8 tries in all: 1, 2, 4 … minutes apart, at most an hour
  mail: ofRecords(
    'Queued mail',
    'mail_queue',
    { retryLimit: 7, retryDelay: 60, retryBackoff: true, retryDelayMax: 60 * 60 },
    15 * 60,
    { waiting: ['pending', 'sending'], concurrency: 2 },
  ),
  // running a file again is safe (accounts are matched by email, assignments are not doubled)
  'user-import': ofRecords(
    'User imports',
    'import_jobs',
    { retryLimit: 2, retryDelay: 30, retryBackoff: true },
    4 * 60 * 60,
  ),
  'export-run': ofRecords(
    'Scheduled exports',
    'export_runs',
    { retryLimit: 2, retryDelay: 60, retryBackoff: true },
    6 * 60 * 60,
  ),
  'export-look': housekeeping('Looking for due exports', '* * * * *', 5 * 60),
  // a second try a few minutes later; then the run fails, the super admins are mailed, and the next slot is
  // the next chance
  'backup-run': ofRecords(
    'Scheduled backups',
    'backup_runs',
    { retryLimit: 1, retryDelay: 5 * 60, retryBackoff: false },
    12 * 60 * 60,
  ),
  'backup-look': housekeeping('Looking for due backups', '* * * * *', 5 * 60),
  'sign-in-sweep': housekeeping('Forgetting old sign-in events', '7 * * * *', 15 * 60),
  'upload-sweep': housekeeping('Removing unattached uploads', '17 * * * *', 60 * 60),
  'certificate-issue': {
    ...housekeeping('Issuing certificates', '* * * * *', 15 * 60),
    wakeChannel: 'certificates_due',
    policy: 'stately',
  },
  // each reminder of a due date is queued once, whichever sweep finds it first (app/modules/deadlines)
  'reminder-sweep': { ...housekeeping('Queueing due-date reminders', '*/5 * * * *', 10 * 60), policy: 'stately' },
}

/** The dead-letter queue of a queue whose jobs have records. */
export const gaveUpQueue = (name: QueueName) => `${name}-gave-up`

/** The job states as the library names them, in the order a job goes through them. */
export const JOB_STATES = ['created', 'retry', 'active', 'completed', 'failed', 'cancelled'] as const
export type JobState = (typeof JOB_STATES)[number]
