import { randomBytes } from 'node:crypto'
import { LOOPBACK_HOSTS, PRIVACY_ENHANCED_HOST, VIMEO_PLAYER_HOST } from '#app/modules/content/video-hosts.ts'

// The Content-Security-Policy of the app's pages (ADR 028). The headers every answer carries
// (framing, referrer, HSTS …) are the web server's, server/security-headers.js; a page adds this
// policy, made per request because its nonce is.

/** A fresh nonce for one page: 128 random bits. */
export const createNonce = () => randomBytes(16).toString('base64')

/** A VIDEO_HOSTS entry as embeds compare it: host[:port], lower case, nothing else. */
const HOST_AND_PORT =
  /^(?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)*|\[[0-9a-f:.]+\])(?::\d{1,5})?$/

/**
 * The sources of VIDEO_HOSTS, as embeds allow them (app/modules/content/embed.ts): https, and plain
 * http on loopback only. An entry that is no host[:port] is left out, so it can add nothing else.
 */
function extraVideoSources(videoHosts: readonly string[]): string[] {
  return videoHosts
    .filter((host) => HOST_AND_PORT.test(host))
    .flatMap((host) => {
      const name = host.replace(/:\d+$/, '')
      return LOOPBACK_HOSTS.has(name) ? [`https://${host}`, `http://${host}`] : [`https://${host}`]
    })
}

/**
 * A page's policy. Scripts: the app's own files, and inline only with this page's nonce (Remix's
 * context and module loader, scroll restoration). Frames: the stored players' hosts (YouTube's
 * privacy-enhanced host, Vimeo's player), VIDEO_HOSTS, and this site (the PDF viewers). Styles may
 * be inline: the toasts inject a stylesheet and progress bars set a width, and CSS runs no script.
 * A lab page may also start workers of this site and compile WebAssembly (practice in the browser); no other may.
 */
export function pagePolicy({
  nonce,
  videoHosts,
  practice = false,
}: {
  nonce: string
  videoHosts: readonly string[]
  /** a lab page: it starts the practice worker, which runs PostgreSQL as WebAssembly */
  practice?: boolean
}): string {
  const extra = extraVideoSources(videoHosts)
  return [
    "default-src 'self'",
    [`script-src 'self' 'nonce-${nonce}'`, ...(practice ? ["'wasm-unsafe-eval'"] : [])].join(' '),
    ...(practice ? ["worker-src 'self'"] : []),
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data:",
    "font-src 'self'",
    "connect-src 'self'",
    ["media-src 'self'", ...extra].join(' '),
    ["frame-src 'self'", `https://${PRIVACY_ENHANCED_HOST}`, `https://${VIMEO_PLAYER_HOST}`, ...extra].join(' '),
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ')
}

/**
 * For a stored file the app shows in its own frames (the document and assessment viewers): this
 * site may frame it, no other; the file itself loads nothing.
 */
export const FRAMED_BY_THIS_SITE = {
  'Content-Security-Policy': "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'self'",
  'X-Frame-Options': 'SAMEORIGIN',
} as const

/** Whether one of a page's matched routes says it runs practice (`export const handle = { practice: true }`). */
export function pageRunsPractice(context: {
  staticHandlerContext: { matches: { route: { id: string } }[] }
  routeModules: Record<string, { handle?: unknown } | undefined>
}): boolean {
  return context.staticHandlerContext.matches.some((match) => {
    const handle = context.routeModules[match.route.id]?.handle as { practice?: unknown } | undefined
    return handle?.practice === true
  })
}
