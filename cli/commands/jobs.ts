import type { Command } from 'commander'
import { SYSTEM } from '#app/modules/auth/roles.ts'
import { JOB_STATES, QUEUE_NAMES } from '#app/modules/jobs/queues.ts'
import { cancelJob, listJobs, retryJob, type JobView } from '#app/modules/jobs/service.server.ts'
import { withDatabase } from '../database.ts'
import { textTable as table, usageOf } from '../output.ts'

// `portal jobs …`: the background jobs, as the Jobs page shows them. Data (a table, JSON) goes to
// stdout, what happened to stderr; an unknown job or one that cannot be retried or cancelled exits 1,
// wrong input exits 2.

const describe = (job: JobView) =>
  `Job ${job.id} (${job.queue}) is ${job.state}${job.state === 'failed' && job.error ? `: ${job.error}` : ''}.`

export function registerJobs(program: Command) {
  const jobs = program.command('jobs').description('the background jobs: list, retry a failed one, cancel one')

  jobs
    .command('list')
    .description('the latest jobs, newest first')
    .option('--state <state>', `only jobs in this state: ${JOB_STATES.join(', ')}`)
    .option('--queue <queue>', `only this queue: ${QUEUE_NAMES.join(', ')}`)
    .option('--limit <n>', 'how many jobs to list (1 to 1000)', '50')
    .option('--json', 'print the jobs as JSON')
    .action(async (options: { state?: string; queue?: string; limit: string; json?: boolean }) => {
      const found = await withDatabase(() =>
        listJobs(SYSTEM, { state: options.state, queue: options.queue, limit: options.limit }).catch(usageOf),
      )
      if (options.json) return console.log(JSON.stringify(found, null, 2))
      if (!found.length) return console.error(options.state ? `No ${options.state} jobs.` : 'No jobs.')
      console.log(
        table([
          ['ID', 'QUEUE', 'STATE', 'TRIES', 'CREATED', 'ENDED', 'ERROR'],
          ...found.map((job) => [
            job.id,
            job.queue,
            job.state,
            `${job.tries}/${job.triesAllowed}`,
            job.createdAt,
            job.endedAt ?? '',
            job.error ?? '',
          ]),
        ]),
      )
    })

  jobs
    .command('retry')
    .description('try a failed job again (or let a cancelled one run after all)')
    .argument('<id>', 'the job')
    .option('--json', 'print the job as JSON')
    .action(async (id: string, options: { json?: boolean }) => {
      const job = await withDatabase(() => retryJob(SYSTEM, id))
      if (options.json) console.log(JSON.stringify(job, null, 2))
      console.error(describe(job))
    })

  jobs
    .command('cancel')
    .description('cancel a waiting or running job')
    .argument('<id>', 'the job')
    .option('--json', 'print the job as JSON')
    .action(async (id: string, options: { json?: boolean }) => {
      const job = await withDatabase(() => cancelJob(SYSTEM, id))
      if (options.json) console.log(JSON.stringify(job, null, 2))
      console.error(describe(job))
    })
}
