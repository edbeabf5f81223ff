// One rule for all text a client sends, applied where it is read (a JSON body, a page's form, an
// /api URL): no NUL (U+0000). PostgreSQL's text and jsonb cannot hold it, Sequelize would quietly
// store a backslash and a zero instead, and no field of the portal needs it (ADR 028).

export const NUL_MESSAGE = 'Text cannot contain NUL characters.'

const hasNul = (text: string) => text.includes('\u0000')

/**
 * The fields of a parsed JSON value (or form) whose text holds a NUL, each with NUL_MESSAGE, named
 * as field errors are (`tags.1`; `body` for the value itself); a key with a NUL names its object.
 */
export function nulFieldErrors(value: unknown, path: string[] = []): Record<string, string> {
  const errors: Record<string, string> = {}
  const visit = (item: unknown, at: string[]) => {
    if (typeof item === 'string') {
      if (hasNul(item)) errors[at.join('.') || 'body'] ??= NUL_MESSAGE
    } else if (Array.isArray(item)) {
      item.forEach((element, index) => visit(element, [...at, String(index)]))
    } else if (item !== null && typeof item === 'object') {
      for (const [key, element] of Object.entries(item)) {
        if (hasNul(key)) errors[at.join('.') || 'body'] ??= NUL_MESSAGE
        else visit(element, [...at, key])
      }
    }
  }
  visit(value, path)
  return errors
}

/** The text fields of a form that hold a NUL (files are not text, and their names are made safe on storing). */
export function nulFormErrors(entries: Iterable<[string, FormDataEntryValue]>): Record<string, string> {
  const errors: Record<string, string> = {}
  for (const [name, value] of entries)
    if (hasNul(name) || (typeof value === 'string' && hasNul(value)))
      errors[name.replaceAll('\u0000', '')] ??= NUL_MESSAGE
  return errors
}

/** Whether a request's URL (path or query, decoded) or its route's params carry a NUL. */
export function urlHasNul(url: string, params: Record<string, string | undefined> = {}): boolean {
  const { pathname, searchParams } = new URL(url)
  let path = pathname
  try {
    path = decodeURIComponent(pathname)
  } catch {
    // a malformed escape is not a NUL; the route answers it as it would
  }
  if (hasNul(path)) return true
  for (const [key, value] of searchParams) if (hasNul(key) || hasNul(value)) return true
  return Object.values(params).some((value) => value !== undefined && hasNul(value))
}
