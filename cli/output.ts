import { ZodError } from 'zod'
import { isServiceError } from '#app/modules/errors.ts'
import { hideCredentials } from '#app/utils/redact.server.ts'
import { DatabaseStartError } from '#db/embedded.ts'

/** Exit codes: 1 the operation failed, 2 the command was used wrongly (missing or invalid input). */
export class UsageError extends Error {}

/**
 * What the CLI prints for an error that ends a command, and the exit code. Every line goes through the
 * credential scrubber the export history uses: an S3 key or a URL's password in a message is never shown.
 */
export function describeFailure(error: unknown): { lines: string[]; code: 1 | 2 } {
  const shown = (text: string) => text.split(/\r?\n/).map((line, i) => `${i ? '' : 'portal: '}${hideCredentials(line)}`)
  if (error instanceof UsageError) return { lines: shown(error.message), code: 2 }
  if (error instanceof ZodError)
    return {
      lines: error.issues.flatMap((issue) => shown(`${issue.path.join('.') || 'input'}: ${issue.message}`)),
      code: 2,
    }
  if (isServiceError(error)) return { lines: shown(error.message), code: error.status === 400 ? 2 : 1 }
  if (error instanceof DatabaseStartError) return { lines: shown(error.message), code: 1 }
  return { lines: shown(error instanceof Error ? error.message : String(error)), code: 1 }
}

export function fail(error: unknown): never {
  const { lines, code } = describeFailure(error)
  for (const line of lines) console.error(line)
  process.exit(code)
}

/** Rows as aligned columns for a terminal (the first row is the header); `--json` is for scripts. */
export function textTable(rows: string[][]): string {
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)))
  return rows
    .map((r) =>
      r
        .map((cell, i) => cell.padEnd(widths[i]))
        .join('  ')
        .trimEnd(),
    )
    .join('\n')
}

/** `1 row`, `2 rows`: a count with its noun. */
export const plural = (count: number, noun: string) => `${count} ${noun}${count === 1 ? '' : 's'}`

/**
 * A refusal of the input's schema as a usage error (exit 2), each problem named by the option that sets the
 * field: `--<field>` unless `flagOf` names it otherwise. Any other error is passed on as it is.
 */
export function usageOf(error: unknown, flagOf: (field: string) => string = (field) => `--${field}`): never {
  if (!(error instanceof ZodError)) throw error
  throw new UsageError(
    error.issues.map((issue) => `${flagOf(String(issue.path[0]))}: ${issue.message}`).join('\nportal: '),
  )
}
