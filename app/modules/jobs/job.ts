import { hideCredentials } from '#app/utils/redact.server.ts'

/** One try of a job, as its handler sees it. */
export type RunningJob = {
  id: string
  /** tries before this one */
  retryCount: number
  /** no try comes after this one when it fails */
  lastTry: boolean
  /** aborted when the work can no longer count: the job was cancelled or lost, or the worker is stopping */
  signal: AbortSignal
}

/** What a queue's jobs do, given by the area that owns the queue's records. */
export type JobHandler = {
  run(job: RunningJob): Promise<void>
  /** The record hears its work was given up: tries used up, or its worker gone for good. */
  gaveUp?(id: string, reason: string): Promise<void>
  /** The record hears an operator cancelled its job. */
  cancelled?(id: string): Promise<void>
  /** The record waits on work again: an operator retried its failed job. */
  reopened?(id: string): Promise<void>
}

/**
 * Why a try failed, in one line of at most 500 characters and never with a credential, as the job keeps
 * it: the Jobs page and `portal jobs` show it as it is.
 */
export function failureLine(error: unknown): string {
  const folded = (error instanceof Error ? error.message : String(error)).replace(/\s+/g, ' ').trim()
  let line = hideCredentials(folded)
  if (line.length > 500) line = `${line.slice(0, 499)}…`
  return line || 'The job failed.'
}

/** The error a failed try leaves on its job: its one line, without the stack of the code that threw it. */
export function jobFailure(error: unknown): Error {
  const failure = new Error(failureLine(error))
  failure.stack = undefined
  return failure
}

/** The message a failed job keeps in its output (an error the library serialised, or its own words). */
export function outputMessage(output: unknown): string | undefined {
  if (!output || typeof output !== 'object') return typeof output === 'string' ? output : undefined
  const record = output as { message?: unknown; value?: unknown }
  if (typeof record.message === 'string') return record.message
  return outputMessage(record.value)
}

/** Why a try ended, in the portal's words where the job library ended it itself. */
export function describeFailure(message: string): string {
  if (/heartbeat timeout/i.test(message))
    return 'The worker running it stopped answering (its process ended or lost the database).'
  if (/shut down/i.test(message)) return 'Its worker was stopping and handed it back before it finished.'
  if (/exceeded \d+s|expired/i.test(message)) return 'It ran longer than its queue allows and was stopped.'
  return failureLine(message)
}
