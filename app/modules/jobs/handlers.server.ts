import { forgetOldSignInEvents } from '../auth/sign-ins.server.ts'
import { backupLookJobs, backupRunJobs } from '../backups/schedules.server.ts'
import { issueDueCertificates } from '../certificates/issue.server.ts'
import { runReminderSweep } from '../deadlines/sweep.server.ts'
import { exportLookJobs, exportRunJobs } from '../exports/service.server.ts'
import { sweepUnattachedFiles, UNATTACHED_FILE_LIFETIME_MS } from '../files/service.server.ts'
import { mailJobs } from '../mail/queue.server.ts'
import { importJobs } from '../users/import-jobs.server.ts'
import type { JobHandler } from './job.ts'
import type { QueueName } from './queues.ts'

/** Each queue's handler, from the area that owns its records. */
export const HANDLERS: Record<QueueName, JobHandler> = {
  mail: mailJobs,
  'user-import': importJobs,
  'export-run': exportRunJobs,
  'export-look': exportLookJobs,
  'backup-run': backupRunJobs,
  'backup-look': backupLookJobs,
  'sign-in-sweep': {
    async run() {
      await forgetOldSignInEvents()
    },
  },
  'certificate-issue': {
    async run({ signal }) {
      await issueDueCertificates(signal)
    },
  },
  'reminder-sweep': {
    async run({ signal }) {
      await runReminderSweep({ signal })
    },
  },
  'upload-sweep': {
    async run() {
      await sweepUnattachedFiles({ olderThanMs: UNATTACHED_FILE_LIFETIME_MS })
    },
  },
}
