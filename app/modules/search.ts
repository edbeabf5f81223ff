/**
 * A search box's text as an ILIKE pattern that matches it anywhere, case-insensitively:
 * trimmed, at most 100 characters, with LIKE's own wildcards (% _ \) taken literally, and without NUL
 * characters, which PostgreSQL cannot take in text (the query failed).
 */
export function searchPattern(text: string | undefined): { search: string; pattern: string } {
  const search = (text ?? '').replaceAll('\0', '').trim().slice(0, 100)
  return { search, pattern: `%${search.replace(/[\\%_]/g, (c) => `\\${c}`)}%` }
}
