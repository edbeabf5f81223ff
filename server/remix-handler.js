// The Remix app as an Express handler: what @remix-run/express's createRequestHandler does (the same
// Request from the Express request, the same status, headers and body back, the request aborted when
// the client goes away), except that the answer's body is written only as fast as the client takes it.
// @remix-run/express writes every chunk without waiting for the socket to drain, so a client slower
// than the database had a streamed list (ADR 020) pile up in memory while the cursor read on; here a
// full socket pauses the body, and through it the cursor. Built on @remix-run/node's public API only.
//
// And the answer leaves only once the client has sent its body: a request refused before its body is
// read (a wrong file type, a file too large, a caller not signed in) has the rest of its body read and
// dropped, up to DISCARD_BODY_MAX_MB, so that a browser, which sends the whole body before it reads
// the answer, gets the refusal rather than a reset connection ("Failed to fetch").
import { createRequestHandler as createRemixHandler } from '@remix-run/node'

/**
 * @import { IncomingHttpHeaders, IncomingMessage } from 'node:http'
 * @import { AppLoadContext, ServerBuild } from '@remix-run/node'
 * @import { NextFunction, Request as ExpressRequest, Response as ExpressResponse } from 'express'
 */

/** How much of a body the app left unread the server still reads and drops so that the client gets its answer. */
const DEFAULT_DISCARD_BODY_MAX_MB = 256

/**
 * An Express handler that answers with the Remix `build`. `getLoadContext(req, res)` gives the
 * loaders' and actions' `context`. `replaceServerError(req)`, when given, is asked about every 500
 * the app answers, and what it resolves with (a Response) is sent instead; undefined keeps the 500.
 * `discardLimit`: the bytes of an unread body dropped before the connection is given up
 * (DISCARD_BODY_MAX_MB by default).
 * @param {{
 *   build: ServerBuild,
 *   getLoadContext?: (req: ExpressRequest, res: ExpressResponse) => AppLoadContext | undefined | Promise<AppLoadContext | undefined>,
 *   replaceServerError?: (req: ExpressRequest) => Promise<Response | undefined>,
 *   mode?: string,
 *   discardLimit?: number,
 * }} options
 * @returns {(req: ExpressRequest, res: ExpressResponse, next: NextFunction) => Promise<void>}
 */
export function createRequestHandler({
  build,
  getLoadContext,
  replaceServerError,
  mode = process.env.NODE_ENV,
  discardLimit = discardLimitFromEnv(),
}) {
  const handleRequest = createRemixHandler(build, mode)
  return async (req, res, next) => {
    try {
      const refusal = crossSiteFormRefusal(req)
      if (refusal) {
        if (!(await dropRest(req, discardLimit))) res.setHeader('Connection', 'close')
        return await sendRemixResponse(res, refusal)
      }
      const request = createRemixRequest(req, res, { discardLimit })
      const loadContext = await getLoadContext?.(req, res)
      let response = await handleRequest(request, loadContext)
      if (response.status === 500 && replaceServerError) {
        const instead = await replaceServerError(req)
        if (instead) {
          await response.body?.cancel().catch(() => undefined)
          response = instead
        }
      }
      // Node closes the connection when an answer ends before its request did, and a client still
      // sending then sees a reset instead of the answer: the rest of the body goes first. Past the
      // limit the client gets the answer if it reads while sending, and the connection is closed.
      if (!(await dropRest(req, discardLimit))) res.setHeader('Connection', 'close')
      await sendRemixResponse(res, response)
    } catch (error) {
      // Express 4 does not catch a rejected promise: hand the error on
      next(error)
    }
  }
}

const CROSS_SITE_PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Sent from another site</title>
<style>body{font-family:system-ui,sans-serif;color:#0f172a;margin:0}main{max-width:36rem;margin:20vh auto 0;padding:0 1.5rem;text-align:center}p{color:#475569}a{color:#1d4ed8}</style>
</head>
<body>
<main>
<p>Error 403</p>
<h1>This form was sent from another site</h1>
<p>The portal accepts its forms only from its own pages, so nothing was changed. If you meant to do this, open the portal and send the form from there.</p>
<p><a href="/">Go to the portal</a></p>
</main>
</body>
</html>
`

/**
 * A page form (anything but GET, HEAD and OPTIONS outside /api) whose Origin is another site's is
 * refused with 403 and a page saying why. Remix refuses the same requests, by the same rule (the
 * Origin's host against X-Forwarded-Host, else Host), but by throwing, which answered an empty 500.
 * The /api answers cross-site calls itself: a Bearer token may come from anywhere, a cookie may not.
 * @param {ExpressRequest} req
 * @returns {Response | undefined}
 */
function crossSiteFormRefusal(req) {
  if (['GET', 'HEAD', 'OPTIONS'].includes(req.method) || req.path.startsWith('/api/')) return undefined
  const origin = req.get('Origin')
  if (origin === undefined) return undefined
  let originHost
  try {
    originHost = origin === 'null' ? 'null' : new URL(origin).host
  } catch {
    originHost = 'unreadable'
  }
  const host = req.get('X-Forwarded-Host')?.split(',')[0]?.trim() || req.get('Host')
  if (host && originHost === host) return undefined
  return new Response(CROSS_SITE_PAGE, {
    status: 403,
    headers: { 'Content-Type': 'text/html; charset=utf-8', 'Cache-Control': 'no-store' },
  })
}

function discardLimitFromEnv() {
  const mb = Number(process.env.DISCARD_BODY_MAX_MB || DEFAULT_DISCARD_BODY_MAX_MB)
  return Math.floor((Number.isFinite(mb) && mb >= 0 ? mb : DEFAULT_DISCARD_BODY_MAX_MB) * 1024 * 1024)
}

/**
 * The web Request for an Express request; its signal aborts when the client goes away before the
 * answer is sent. Its body, cancelled by the app (a refused upload), is not torn down with the
 * connection: the rest is read and dropped, at most `discardLimit` bytes.
 * @param {ExpressRequest} req
 * @param {ExpressResponse} res
 * @param {{ discardLimit?: number }} [options]
 */
function createRemixRequest(req, res, { discardLimit = discardLimitFromEnv() } = {}) {
  // req.hostname has no port: take it from X-Forwarded-Host or Host; req.hostname and req.protocol
  // follow Express's "trust proxy"
  const [, forwardedPort] = req.get('X-Forwarded-Host')?.split(':') ?? []
  const [, hostPort] = req.get('host')?.split(':') ?? []
  const port = [forwardedPort, hostPort].map((p) => Number.parseInt(p, 10)).find(Number.isSafeInteger)
  const url = new URL(`${req.protocol}://${req.hostname}${port ? `:${port}` : ''}${req.originalUrl}`)
  const controller = new AbortController()
  // `duplex`: a streamed body goes as it is read (Node's fetch types name it; the DOM's do not yet)
  /** @type {RequestInit & { duplex?: 'half' }} */
  const init = { method: req.method, headers: createRemixHeaders(req.headers), signal: controller.signal }
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    init.body = createRequestBody(req, discardLimit)
    init.duplex = 'half'
  }
  // 'close' without 'finish' first: the answer can no longer be sent, so the loader or action, and a
  // body still being read for it, stop
  let sent = false
  res.on('finish', () => (sent = true))
  res.on('close', () => !sent && controller.abort())
  return new Request(url.href, init)
}

/** The bytes of a body read as they are asked for: a full queue pauses the socket. */
const BODY_HIGH_WATER_MARK = 64 * 1024

/**
 * Requests whose rest is being dropped: whether all of it was (false: the limit was passed).
 * @type {WeakMap<IncomingMessage, Promise<boolean>>}
 */
const dropping = new WeakMap()

/**
 * The request's body as a web stream. Cancelling it drops the rest instead of destroying the socket.
 * @param {IncomingMessage} req
 * @param {number} discardLimit
 * @returns {ReadableStream<Uint8Array>}
 */
function createRequestBody(req, discardLimit) {
  /** @type {ReadableStreamDefaultController<Uint8Array>} */
  let controller
  const stream = new ReadableStream(
    {
      start: (c) => void (controller = c),
      pull: () => void req.resume(),
      cancel: () => void dropRest(req, discardLimit),
    },
    /** @type {QueuingStrategy<Uint8Array>} */ (new ByteLengthQueuingStrategy({ highWaterMark: BODY_HIGH_WATER_MARK })),
  )
  const streaming = () => !dropping.has(req)
  req.on('data', (/** @type {Buffer} */ chunk) => {
    if (!streaming()) return
    controller.enqueue(chunk)
    // desiredSize is null only once the stream has failed, when nothing more is read either
    if ((controller.desiredSize ?? 0) <= 0) req.pause()
  })
  req.once('end', () => streaming() && controller.close())
  req.once('error', (/** @type {Error} */ error) => streaming() && controller.error(error))
  return stream
}

/**
 * Reads and drops what is left of the request's body. Resolves true once the client has sent all of
 * it (or gone away), false when more than `limit` bytes were left: reading stops there.
 * @param {IncomingMessage} req
 * @param {number} limit
 * @returns {Promise<boolean>}
 */
function dropRest(req, limit) {
  const dropped = dropping.get(req)
  if (dropped) return dropped
  if (req.complete || req.destroyed) return Promise.resolve(true)
  /** @type {(whole: boolean) => void} */
  let resolve = () => undefined
  /** @type {Promise<boolean>} */
  const done = new Promise((r) => (resolve = r))
  // set first: from here on the body's stream takes no more chunks
  dropping.set(req, done)
  let bytes = 0
  const count = (/** @type {Buffer} */ chunk) => {
    bytes += chunk.length
    if (bytes <= limit) return
    req.pause()
    finish(false)
  }
  const finish = (/** @type {boolean} */ whole) => {
    req.off('data', count)
    resolve(whole)
  }
  req.on('data', count)
  req.once('end', () => finish(true))
  req.once('close', () => finish(true))
  req.once('error', () => finish(true))
  req.resume()
  return done
}

/**
 * Node's request headers as web Headers, repeated ones (Cookie sent twice …) kept.
 * @param {IncomingHttpHeaders} requestHeaders
 */
function createRemixHeaders(requestHeaders) {
  const headers = new Headers()
  for (const [key, values] of Object.entries(requestHeaders)) {
    if (!values) continue
    if (Array.isArray(values)) for (const value of values) headers.append(key, value)
    else headers.set(key, values)
  }
  return headers
}

/**
 * Writes a web Response to Express's `res`: status, every header (each Set-Cookie on its own line),
 * then the body, a chunk at a time, waiting for 'drain' whenever the socket (or compression's
 * stream, which proxies 'drain') is full. A client that goes away cancels the body, which stops
 * whatever produces it; a body that fails part-way breaks the connection, so the answer never looks
 * complete (the app logs its own failures). Resolves when the answer is sent or given up.
 * @param {ExpressResponse} res
 * @param {Response} response
 * @returns {Promise<void>}
 */
export async function sendRemixResponse(res, response) {
  res.statusMessage = response.statusText
  res.status(response.status)
  for (const [key, value] of response.headers.entries()) res.append(key, value)
  if (response.headers.get('Content-Type')?.match(/text\/event-stream/i)) res.flushHeaders()
  if (!response.body) {
    res.end()
    return
  }

  const reader = response.body.getReader()
  let gone = false
  /** @type {(() => void) | undefined} */
  let wake
  const goneAway = () => {
    gone = true
    wake?.()
    reader.cancel().catch(() => undefined)
  }
  // the client may have gone while the app was still working on the answer
  if (res.destroyed) return goneAway()
  // one listener each for the whole answer: compression proxies 'drain' to its zlib stream, where
  // once() could not take its listener off again
  res.on('drain', () => wake?.())
  res.on('close', () => !res.writableFinished && goneAway())
  try {
    for (;;) {
      const { done, value } = await reader.read()
      if (gone) return
      if (done) break
      const more = res.write(value)
      // compression's: send what zlib holds now (a streamed page's early chunks must not wait)
      res.flush?.()
      if (!more && !gone) await /** @type {Promise<void>} */ (new Promise((resolve) => (wake = resolve)))
      wake = undefined
      if (gone) return
    }
    res.end()
  } catch (error) {
    if (!gone) res.destroy(error instanceof Error ? error : new Error(String(error)))
  }
}
