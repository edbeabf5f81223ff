import { ZodError } from 'zod'
import { isServiceError } from '#app/modules/errors.ts'
import { DatabaseStartError } from '#db/embedded.ts'

/** Exit codes: 1 the operation failed, 2 the command was used wrongly (missing or invalid input). */
export class UsageError extends Error {}

export function fail(error: unknown): never {
  if (error instanceof UsageError) {
    console.error(`portal: ${error.message}`)
    process.exit(2)
  }
  if (error instanceof ZodError) {
    for (const issue of error.issues) console.error(`portal: ${issue.path.join('.') || 'input'}: ${issue.message}`)
    process.exit(2)
  }
  if (isServiceError(error)) {
    console.error(`portal: ${error.message}`)
    process.exit(error.status === 400 ? 2 : 1)
  }
  if (error instanceof DatabaseStartError) {
    console.error(`portal: ${error.message}`)
    process.exit(1)
  }
  console.error(`portal: ${error instanceof Error ? error.message : String(error)}`)
  process.exit(1)
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
