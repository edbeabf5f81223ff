import { sendQueued, type SendResult } from './queue.server.ts'

// What `portal serve` runs beside the app: the mail queue sent once at start and then every few seconds,
// one pass at a time (a pass still busy when the next tick comes is not doubled). Stopping gives back the
// rows not yet sent, waits for the mail being handed to the server, and resolves once nothing is left
// that needs the database.

export const SEND_EVERY_MS = 5_000

export type MailSender = {
  /** the pass running now, or the one started at start-up */
  current(): Promise<void>
  stop(): Promise<void>
}

export function startMailSender(report: {
  sent: (result: SendResult) => void
  error: (error: unknown) => void
}): MailSender {
  const controller = new AbortController()
  let running: Promise<void> | undefined
  const pass = () => {
    running ??= sendQueued({ signal: controller.signal })
      .then((result) => {
        if (result.sent || result.retrying || result.failed || result.cancelled) report.sent(result)
      }, report.error)
      .finally(() => {
        running = undefined
      })
    return running
  }
  const started = pass()
  const timer = setInterval(() => {
    if (!controller.signal.aborted) void pass()
  }, SEND_EVERY_MS)
  timer.unref()
  return {
    current: () => running ?? started,
    async stop() {
      clearInterval(timer)
      controller.abort()
      await running
    },
  }
}
