import { Cron } from 'croner'
import { runDue, type ExportRunView } from './service.server.ts'

// What `portal serve` runs beside the app: due exports looked for once at start (catching up a slot
// missed while the portal was down) and then at the start of every minute. One look at a time; a look
// still busy when the next minute comes is not doubled. Stopping aborts a running export (its run is
// recorded as failed) and resolves once nothing is left that needs the database.

export type ExportScheduler = {
  /** the look started at start-up, or the one running now */
  current(): Promise<void>
  stop(): Promise<void>
}

export function startExportScheduler(report: {
  run: (run: ExportRunView) => void
  error: (error: unknown) => void
}): ExportScheduler {
  const controller = new AbortController()
  let running: Promise<void> | undefined
  const look = () => {
    running ??= runDue(new Date(), { signal: controller.signal })
      .then((runs) => runs.forEach(report.run), report.error)
      .finally(() => {
        running = undefined
      })
    return running
  }
  const started = look()
  const job = new Cron('* * * * *', { unref: true, catch: report.error }, () => {
    if (!controller.signal.aborted) void look()
  })
  return {
    current: () => running ?? started,
    async stop() {
      job.stop()
      controller.abort()
      await running
    },
  }
}
