// The headers every answer of the web server carries (ADR 028): pages, /api, files, the built assets.
// An answer that sets one of them itself keeps its own (a page's Content-Security-Policy with its
// nonce, the API reference's policy, a stored file the app frames); the rest are filled in here, as
// the head of the answer is written.

/** @import { RequestHandler } from 'express' */

/** Powerful features the portal never uses, refused to the page and every frame in it. */
const PERMISSIONS_POLICY = [
  'accelerometer',
  'camera',
  'display-capture',
  'geolocation',
  'gyroscope',
  'magnetometer',
  'microphone',
  'midi',
  'payment',
  'serial',
  'usb',
]
  .map((feature) => `${feature}=()`)
  .join(', ')

/**
 * The lab pages' practice worker (server/build-practice.js), which keeps the policy of its own answer: it compiles
 * PostgreSQL's WebAssembly and fetches it and the file-system image from this site, nothing else.
 */
export const PRACTICE_WORKER_POLICY = "default-src 'none'; script-src 'self' 'wasm-unsafe-eval'; connect-src 'self'"

/**
 * Express middleware. HSTS only when `publicUrl` (PUBLIC_URL) is https: over plain http a browser
 * ignores it, and a portal served over http must not tell browsers to insist on https.
 * @param {{ publicUrl?: string }} [options]
 * @returns {RequestHandler}
 */
export function securityHeaders({ publicUrl = process.env.PUBLIC_URL } = {}) {
  /** @type {[name: string, value: string][]} */
  const defaults = [
    // JSON, a CSV or a file: nothing in it may run, and no other site may frame it
    ['Content-Security-Policy', "default-src 'none'; frame-ancestors 'none'"],
    ['X-Frame-Options', 'DENY'],
    ['X-Content-Type-Options', 'nosniff'],
    // video players need the page's origin (YouTube refuses to play without it); nothing more leaves
    ['Referrer-Policy', 'strict-origin-when-cross-origin'],
    ['Permissions-Policy', PERMISSIONS_POLICY],
  ]
  if (isHttps(publicUrl)) defaults.push(['Strict-Transport-Security', 'max-age=31536000; includeSubDomains'])

  return (req, res, next) => {
    // every answer's head goes through writeHead (Node calls it for an implicit head too); headers
    // passed to it directly take precedence over these. It is called on with whatever it was given:
    // its overloads (a status message or not) are Node's to tell apart.
    const writeHead = /** @type {(this: typeof res, ...args: unknown[]) => typeof res} */ (res.writeHead)
    res.writeHead = function (...args) {
      for (const [name, value] of defaults) if (!res.hasHeader(name)) res.setHeader(name, value)
      return writeHead.apply(this, args)
    }
    next()
  }
}

/** @param {string | undefined} url */
function isHttps(url) {
  try {
    return url !== undefined && new URL(url).protocol === 'https:'
  } catch {
    return false
  }
}
