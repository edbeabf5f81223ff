// The Remix app as an Express handler: what @remix-run/express's createRequestHandler does (the same
// Request from the Express request, the same status, headers and body back, the request aborted when
// the client goes away), except that the answer's body is written only as fast as the client takes it.
// @remix-run/express writes every chunk without waiting for the socket to drain, so a client slower
// than the database had a streamed list (ADR 020) pile up in memory while the cursor read on; here a
// full socket pauses the body, and through it the cursor. Built on @remix-run/node's public API only.
import { createReadableStreamFromReadable, createRequestHandler as createRemixHandler } from '@remix-run/node'

/**
 * An Express handler that answers with the Remix `build`. `getLoadContext(req, res)` gives the
 * loaders' and actions' `context`. `replaceServerError(req)`, when given, is asked about every 500
 * the app answers, and what it resolves with (a Response) is sent instead; undefined keeps the 500.
 */
export function createRequestHandler({ build, getLoadContext, replaceServerError, mode = process.env.NODE_ENV }) {
  const handleRequest = createRemixHandler(build, mode)
  return async (req, res, next) => {
    try {
      const request = createRemixRequest(req, res)
      const loadContext = await getLoadContext?.(req, res)
      let response = await handleRequest(request, loadContext)
      if (response.status === 500 && replaceServerError) {
        const instead = await replaceServerError(req)
        if (instead) {
          await response.body?.cancel().catch(() => undefined)
          response = instead
        }
      }
      await sendRemixResponse(res, response)
    } catch (error) {
      // Express 4 does not catch a rejected promise: hand the error on
      next(error)
    }
  }
}

/** The web Request for an Express request; its signal aborts when the client goes away before the answer is sent. */
export function createRemixRequest(req, res) {
  // req.hostname has no port: take it from X-Forwarded-Host or Host; req.hostname and req.protocol
  // follow Express's "trust proxy"
  const [, forwardedPort] = req.get('X-Forwarded-Host')?.split(':') ?? []
  const [, hostPort] = req.get('host')?.split(':') ?? []
  const port = [forwardedPort, hostPort].map((p) => Number.parseInt(p, 10)).find(Number.isSafeInteger)
  const url = new URL(`${req.protocol}://${req.hostname}${port ? `:${port}` : ''}${req.originalUrl}`)
  const controller = new AbortController()
  const init = { method: req.method, headers: createRemixHeaders(req.headers), signal: controller.signal }
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    init.body = createReadableStreamFromReadable(req)
    init.duplex = 'half'
  }
  // 'close' without 'finish' first: the answer can no longer be sent, so the loader or action, and a
  // body still being read for it, stop
  let sent = false
  res.on('finish', () => (sent = true))
  res.on('close', () => !sent && controller.abort())
  return new Request(url.href, init)
}

/** Node's request headers as web Headers, repeated ones (Cookie sent twice …) kept. */
export function createRemixHeaders(requestHeaders) {
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
      if (!more && !gone) await new Promise((resolve) => (wake = resolve))
      wake = undefined
      if (gone) return
    }
    res.end()
  } catch (error) {
    if (!gone) res.destroy(error)
  }
}
