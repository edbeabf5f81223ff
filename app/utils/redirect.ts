/**
 * A redirect target from user input, kept only when it is a path on this site: no scheme, no
 * host, no protocol-relative `//` or `/\` trick. Anything else becomes the fallback.
 */
export function safeRedirect(to: FormDataEntryValue | string | null | undefined, fallback = '/') {
  if (typeof to !== 'string' || !to.startsWith('/') || to.startsWith('//') || to.startsWith('/\\')) return fallback
  if (/[\u0000-\u001f]/.test(to)) return fallback
  try {
    const url = new URL(to, 'http://portal.invalid')
    if (url.origin !== 'http://portal.invalid') return fallback
    return `${url.pathname}${url.search}${url.hash}`
  } catch {
    return fallback
  }
}
