import { createHash } from 'node:crypto'
import { pino, type Logger } from 'pino'
import { currentLoadContext } from './request-record.server.ts'

// In the web server the logger of the request being handled (the server's JSON lines on stdout, bound to
// the request's id: its load context); elsewhere (the CLI, tests) one that writes to stderr, so that a
// command's stdout stays its data.
let fallback: Logger | undefined
export function logger(): Logger {
  return (
    currentLoadContext()?.logger ?? (fallback ??= pino({ level: process.env.LOG_LEVEL || 'info' }, pino.destination(2)))
  )
}

/**
 * A statement's text without its values: string and number literals become ?, lists of them one ?…,
 * whitespace one space. What Sequelize logs has the replacements written in, and they can be password
 * hashes or tokens: only this form is ever logged.
 */
export function normalizeSql(sql: string): string {
  return sql
    .replace(/^Executed \([^)]*\):\s*/, '')
    .replace(/(?:\b[EeBbXxUu])?'(?:[^'\\]|''|\\.)*'/g, '?')
    .replace(/(?<![\w$])-?\d+(?:\.\d+)?(?:e[+-]?\d+)?\b/gi, '?')
    .replace(/\?(?:\s*,\s*\?)+/g, '?…')
    .replace(/\s+/g, ' ')
    .trim()
}

/** The statement's shape as a short hash, to group slow queries by statement (the "plan hash"). */
export function sqlHash(sql: string): string {
  return createHash('sha256').update(normalizeSql(sql)).digest('hex').slice(0, 12)
}

export function logSlowQuery(sql: string, ms: number) {
  const text = normalizeSql(sql)
  logger().warn({ durationMs: ms, sqlHash: sqlHash(sql), sql: text.slice(0, 500) }, 'slow query')
}
