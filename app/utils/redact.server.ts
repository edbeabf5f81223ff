// Credentials never reach output: an error line shown by the CLI, logged by the server or kept in a
// run's history goes through `hideCredentials` first.

/** Environment values that must never be shown, longest first (so a key is hidden before a part of it). */
function secretValues(): string[] {
  // read from process.env, not the parsed environment: this also runs when that environment is invalid
  const env = process.env
  const values = [
    env.S3_SECRET_ACCESS_KEY,
    env.S3_ACCESS_KEY_ID,
    env.SESSION_SECRET,
    env.JWT_SECRET,
    env.BRIDGE_SECRET,
    env.CERTIFICATE_SIGNING_KEY,
  ]
  // an SMTP user is often a key of its own; a database user name is not
  values.push(
    ...urlCredentials(env.SMTP_URL, ['password', 'username']),
    ...urlCredentials(env.DATABASE_URL, ['password']),
  )
  // very short values would blank ordinary words
  return [...new Set(values.filter((v): v is string => typeof v === 'string' && v.length >= 4))].sort(
    (a, b) => b.length - a.length,
  )
}

function urlCredentials(address: string | undefined, parts: ('password' | 'username')[]): string[] {
  if (!address) return []
  try {
    const url = new URL(address)
    return parts.flatMap((part) => (url[part] ? [url[part], safeDecode(url[part])] : []))
  } catch {
    return [] // not a URL: nothing to take apart
  }
}

function safeDecode(part: string) {
  try {
    return decodeURIComponent(part)
  } catch {
    return part
  }
}

/**
 * `text` with credentials blanked out: the S3 keys, the app's secrets, the user and password of SMTP_URL, the
 * password of DATABASE_URL, any URL's user and password, and the credential and signature of a signed S3 request.
 */
export function hideCredentials(text: string): string {
  let line = text
  for (const secret of secretValues()) line = line.replaceAll(secret, '[hidden]')
  return line
    .replace(/\/\/[^/\s@]+@/g, '//[hidden]@')
    .replace(/((?:X-Amz-)?(?:Credential|Signature|Security-Token)=)[^&\s,]+/gi, '$1[hidden]')
}

/** The first line of an error's message, trimmed, credentials hidden, at most 500 characters ('' when empty). */
export function errorLine(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error)
  const first =
    message
      .split(/\r?\n/)
      .map((l) => l.trim())
      .find(Boolean) ?? ''
  const line = hideCredentials(first)
  return line.length > 500 ? `${line.slice(0, 499)}…` : line
}
