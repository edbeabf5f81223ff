// The portal's web server (one process, or one cluster worker): express with compression, the built
// assets and public/ as static files, a JSON log line per request, /metrics, and the Remix app.
import { AsyncLocalStorage } from 'node:async_hooks'
import { randomUUID } from 'node:crypto'
import { existsSync, readdirSync } from 'node:fs'
import path from 'node:path'
import url from 'node:url'
import { installGlobals } from '@remix-run/node'
import { matchRoutes } from '@remix-run/router'
import compression from 'compression'
import express from 'express'
import { pino } from 'pino'
import { createRequestHandler } from './remix-handler.js'
import { securityHeaders } from './security-headers.js'

// The socket address of the client, for sign-in throttling (app/utils/client-address.server.ts). Set
// on every request, overwriting whatever a client sent under this name.
export const CLIENT_ADDRESS_HEADER = 'x-portal-client-address'

// What the app tells the server about the request it is handling (the acting user's id, for the log):
// one record per request, reached by the app's bundle through this global (app/utils/request-record.server.ts).
const records = (globalThis[Symbol.for('portal.request')] ??= new AsyncLocalStorage())

/** The process's logger: JSON lines on stdout, readable lines in development when pino-pretty is installed. */
export function createLogger() {
  const level = process.env.LOG_LEVEL || 'info'
  let logger
  if (process.env.NODE_ENV === 'development') {
    try {
      import.meta.resolve('pino-pretty')
      logger = pino({ level, transport: { target: 'pino-pretty', options: { ignore: 'pid,hostname' } } })
    } catch {
      // not installed (a production install): JSON
    }
  }
  if (!logger) {
    // written in the background, a request never waiting for its log line to reach a slow pipe, and in
    // batches of about 4 KB: a write to stdout per request was 8 % of a heartbeat's CPU. A quiet server's
    // lines wait at most half a second; pino writes what is left when the process exits.
    const destination = pino.destination({ dest: 1, sync: false, minLength: 4096 })
    setInterval(() => {
      if (!destination.destroyed) destination.flush()
    }, 500).unref()
    logger = pino({ level }, destination)
  }
  // the app's own lines (a slow query) go through this logger too (app/utils/log.server.ts)
  globalThis[Symbol.for('portal.logger')] = logger
  return logger
}

export async function loadBuild(buildPath) {
  const build = await import(url.pathToFileURL(path.resolve(buildPath)).href)
  installGlobals({ nativeFetch: build.future.v3_singleFetch })
  return build
}

/** The route id a path belongs to (a pattern such as `routes/api+/user.resetPassword.$token`, never the path). */
export function routeMatcher(routes) {
  const childrenOf = (parentId) =>
    Object.values(routes)
      .filter((route) => route.parentId === parentId)
      .map((route) => {
        const children = childrenOf(route.id)
        return {
          id: route.id,
          path: route.path,
          index: route.index,
          caseSensitive: route.caseSensitive,
          ...(children.length ? { children } : {}),
        }
      })
  const tree = childrenOf(undefined)
  // matchRoutes flattens and ranks the whole route table on every call: remember the answers for the
  // paths seen (a heartbeat's path is the same every time), and start again when too many pile up
  const known = new Map()
  return (pathname) => {
    let id = known.get(pathname)
    if (id === undefined) {
      if (known.size >= 5_000) known.clear()
      id = matchRoutes(tree, pathname)?.at(-1)?.route.id ?? 'unmatched'
      known.set(pathname, id)
    }
    return id
  }
}

const sane = /^[\w.:@/+=-]{1,100}$/

/**
 * The express app. `metrics` (server/metrics.js) answers /metrics and times requests; `build` is the
 * Remix server build.
 */
export function createApp({ build, logger, metrics }) {
  const routeOf = routeMatcher(build.routes)
  const app = express()
  app.disable('x-powered-by')
  app.use(compression())
  app.use(securityHeaders())
  app.use(build.publicPath, express.static(build.assetsBuildDirectory, { immutable: true, maxAge: '1y' }))
  // public/ holds a few fixed files: only a path under one of its names is looked for on disk, so a
  // page or /api request does not cost a file-system lookup first
  const publicFiles = express.static('public', { maxAge: '1h' })
  const publicNames = new Set(existsSync('public') ? readdirSync('public') : [])
  app.use((req, res, next) => (publicNames.has(req.path.split('/')[1]) ? publicFiles(req, res, next) : next()))
  app.use((req, res, next) => {
    const started = process.hrtime.bigint()
    const incoming = req.headers['x-request-id']
    const record = { requestId: typeof incoming === 'string' && sane.test(incoming) ? incoming : randomUUID() }
    res.setHeader('X-Request-Id', record.requestId)
    req.headers[CLIENT_ADDRESS_HEADER] = req.socket.remoteAddress ?? ''
    req.portalRecord = record
    res.once('close', () => {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9
      const route = req.path === '/metrics' ? '/metrics' : routeOf(req.path)
      const status = res.writableFinished ? res.statusCode : 499
      metrics?.observe(req.method, route, status, seconds)
      logger.info(
        {
          requestId: record.requestId,
          method: req.method,
          route,
          status,
          durationMs: Math.round(seconds * 10_000) / 10,
          ...(record.userId ? { userId: record.userId } : {}),
        },
        'request',
      )
    })
    records.run(record, next)
  })
  if (metrics) app.get('/metrics', metrics.handler)
  app.all(
    '*',
    createRequestHandler({
      build,
      mode: process.env.NODE_ENV,
      getLoadContext: (req) => ({ request: req.portalRecord }),
    }),
  )
  return app
}

/**
 * Listens on PORT (and HOST when set) and resolves with the http.Server. SIGTERM/SIGINT close it:
 * requests in flight finish, idle keep-alive connections are dropped, then the process exits.
 */
export function listen(app, { logger, port = Number(process.env.PORT) || 3000, host = process.env.HOST }) {
  return new Promise((resolve, reject) => {
    const server = host ? app.listen(port, host) : app.listen(port)
    server.once('error', reject)
    server.once('listening', () => {
      for (const signal of ['SIGTERM', 'SIGINT'])
        process.once(signal, () => {
          server.close(() => process.exit(0))
          server.closeIdleConnections()
          setTimeout(() => process.exit(0), 5_000).unref()
        })
      logger.debug({ port, host }, 'listening')
      resolve(server)
    })
  })
}
