// The portal's web server (one process, or one cluster worker): express with compression, the built
// assets and public/ as static files, a JSON log line per request, /metrics, /livez and /readyz, and the
// Remix app; on SIGTERM or SIGINT it drains (ADR 026).
import { randomUUID } from 'node:crypto'
import { existsSync, readdirSync } from 'node:fs'
import net from 'node:net'
import path from 'node:path'
import url from 'node:url'
import { installGlobals } from '@remix-run/node'
import { matchRoutes } from '@remix-run/router'
import compression from 'compression'
import express from 'express'
import { pino } from 'pino'
import { createRequestHandler } from './remix-handler.js'
import { PRACTICE_WORKER_POLICY, securityHeaders } from './security-headers.js'

/**
 * @import http from 'node:http'
 * @import { AppLoadContext, ServerBuild } from '@remix-run/node'
 * @import { AgnosticRouteObject } from '@remix-run/router'
 * @import { Express, NextFunction, Request, Response } from 'express'
 * @import { Logger } from 'pino'
 * @import { RequestRecord, ServerHooks } from '../app/load-context.ts'
 * @import { Metrics } from './metrics.js'
 */

/**
 * A Remix server build as this server runs it: the app's build carries the hooks of app/load-context.ts
 * in its entry module; another build (a bench's hello-world app) has none.
 * @typedef {ServerBuild & { entry: { module: { serverHooks?: ServerHooks } } }} PortalBuild
 */

/**
 * A route of a build's manifest, or of the route table `remix build` reads (tests, benches).
 * @typedef {{ id: string, parentId?: string, path?: string, index?: boolean, caseSensitive?: boolean }} ManifestRoute
 */

// The socket address of the client, for sign-in throttling (app/utils/client-address.server.ts). Set
// on every request, overwriting whatever a client sent under this name.
const CLIENT_ADDRESS_HEADER = 'x-portal-client-address'

/** The process's logger: JSON lines on stdout, readable lines in development when pino-pretty is installed. */
export function createLogger() {
  const level = process.env.LOG_LEVEL || 'info'
  /** @type {Logger | undefined} */
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
    // lines wait at most half a second (the destination's own timer, which stops when it closes); pino
    // writes what is left when the process exits.
    const destination = pino.destination({ dest: 1, sync: false, minLength: 4096, periodicFlush: 500 })
    logger = pino({ level }, destination)
  }
  return logger
}

/**
 * The build at `buildPath` (build/index.js), with Remix's globals installed as it asks.
 * @param {string} buildPath
 * @returns {Promise<PortalBuild>}
 */
export async function loadBuild(buildPath) {
  // a module named at run time: the checker cannot see it, so it is taken to be what `remix build` writes
  /** @type {PortalBuild} */
  const build = await import(url.pathToFileURL(path.resolve(buildPath)).href)
  installGlobals({ nativeFetch: build.future.v3_singleFetch })
  return build
}

/**
 * A build's route manifest (`{ id: { id, parentId, path, index, caseSensitive } }`) as the nested table
 * `matchRoutes` takes. An index route has no children (Remix gives it none).
 * @param {Record<string, ManifestRoute>} routes
 * @param {string} [parentId]
 * @returns {AgnosticRouteObject[]}
 */
export function routeTree(routes, parentId = undefined) {
  return Object.values(routes)
    .filter((route) => route.parentId === parentId)
    .map((route) => {
      const { id, path, caseSensitive } = route
      if (route.index) return { id, path, index: true, caseSensitive }
      const children = routeTree(routes, id)
      return { id, path, caseSensitive, ...(children.length ? { children } : {}) }
    })
}

/**
 * The route id a path belongs to (a pattern such as `routes/api+/user.resetPassword.$token`, never the path).
 * @param {Record<string, ManifestRoute>} routes
 * @returns {(pathname: string) => string}
 */
function routeMatcher(routes) {
  const tree = routeTree(routes)
  // the server's router keeps this table's matches between calls (patches/, ADR 024)
  return (pathname) => matchRoutes(tree, pathname)?.at(-1)?.route.id ?? 'unmatched'
}

/**
 * express.static's `setHeaders` for the built assets: the practice worker's own policy (a worker keeps the policy
 * of its script's answer, and the default one would stop it compiling WebAssembly).
 * @param {import('node:http').ServerResponse} res
 * @param {string} file
 */
function practiceWorkerPolicy(res, file) {
  if (/[\\/]practice[\\/]worker-[^\\/]+\.js$/.test(file))
    res.setHeader('Content-Security-Policy', PRACTICE_WORKER_POLICY)
}

/** The practice files' types, for their brotli-compressed copies. */
const PRACTICE_TYPES = {
  '.js': 'text/javascript; charset=utf-8',
  '.wasm': 'application/wasm',
  '.data': 'application/octet-stream',
  '.tar': 'application/x-tar',
}

/**
 * The lab pages' practice files as server/build-practice.js compressed them with brotli (`<name>.br`), to a browser
 * that takes brotli; anything else goes on to the built assets (compressed on the fly).
 * @param {string} dir
 * @returns {import('express').RequestHandler}
 */
function practicePrecompressed(dir) {
  /** @type {Map<string, boolean>} */
  const found = new Map()
  return (req, res, next) => {
    const name = req.path.slice(1)
    const type = PRACTICE_TYPES[/** @type {keyof typeof PRACTICE_TYPES} */ (path.extname(name))]
    if ((req.method !== 'GET' && req.method !== 'HEAD') || !type || !/^[\w.-]+$/.test(name)) return next()
    if (!req.acceptsEncodings('br')) return next()
    const file = path.join(dir, `${name}.br`)
    if (!found.has(file)) found.set(file, existsSync(file))
    if (!found.get(file)) return next()
    res.setHeader('Content-Type', type)
    res.setHeader('Content-Encoding', 'br')
    res.setHeader('Vary', 'Accept-Encoding')
    practiceWorkerPolicy(res, path.join(dir, name))
    res.sendFile(
      path.resolve(file),
      { immutable: true, maxAge: '1y', acceptRanges: false },
      (error) => error && next(error),
    )
  }
}

const sane = /^[\w.:@/+=-]{1,100}$/

/**
 * The hooks an app's build gives the server (app/entry.server.tsx); a build without them has no database.
 * @param {PortalBuild} build
 */
export function serverHooksOf(build) {
  return build.entry.module.serverHooks
}

/**
 * What the server knows of its own life: whether it is draining, the responses it is working on, and
 * whether the app's `database` (its build's serverHooks) answers; without one there is none to wait for.
 * @param {{ database?: ServerHooks['database'] }} [app]
 */
export function createLifecycle({ database } = {}) {
  let draining = false
  /** @type {(Promise<boolean> & { since: number }) | undefined} */
  let asking
  // the database's last outage as seen by the questions asked: still on, or when it was seen over
  let down = false
  let recoveredAt = -Infinity
  /** @type {Set<Response>} */
  const inFlight = new Set()
  /** @param {() => Promise<boolean>} answers */
  const ask = (answers) => {
    const since = performance.now()
    const question = answers()
      .catch(() => false)
      .then((answered) => {
        if (!answered) down = true
        else if (down) {
          down = false
          recoveredAt = since
        }
        if (asking === question) asking = undefined
        return answered
      })
    return Object.assign(question, { since })
  }
  return {
    get draining() {
      return draining
    },
    inFlight,
    /** From now on /readyz answers 503 and every response not yet begun closes its connection after it. */
    startDraining() {
      draining = true
      for (const res of inFlight) if (!res.headersSent) res.setHeader('Connection', 'close')
    },
    /**
     * Does the database answer? Callers at the same moment share one question, but one asked before
     * `after` (a performance.now() time) is not shared.
     */
    databaseAnswers(after = 0) {
      if (!database) return Promise.resolve(true)
      if (!asking || asking.since < after) asking = ask(() => database.answers())
      return asking
    },
    /**
     * Was the database away at some time since `since` (a performance.now() time)? Asks it now, and counts
     * an outage seen over after `since`: a request that failed as the database came back failed for it.
     * @param {number} since
     */
    async databaseAwaySince(since) {
      const answered = await this.databaseAnswers(performance.now())
      return !answered || recoveredAt > since
    },
    /** Closes the app's database pool (once the server has drained). */
    async closeDatabase() {
      await database?.close()
    },
  }
}

const OUTAGE_MESSAGE = 'The service is briefly unavailable; please try again in a moment.'
const OUTAGE_PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>The service is briefly unavailable</title>
<style>body{font-family:system-ui,sans-serif;color:#0f172a;margin:0}main{max-width:36rem;margin:20vh auto 0;padding:0 1.5rem;text-align:center}p{color:#475569}a{color:#1d4ed8}</style>
</head>
<body>
<main>
<p>Error 503</p>
<h1>The service is briefly unavailable</h1>
<p>The portal cannot reach its database just now; this usually lasts only seconds. What you saved before is kept; anything you were sending just now was not saved, so please send it again in a moment.</p>
<p><a href="">Try again</a></p>
</main>
</body>
</html>
`

/**
 * The answer to a request that failed while the database does not answer: 503, a page or /api's JSON.
 * @param {Request} req
 */
function outageResponse(req) {
  const api = req.path.startsWith('/api/')
  return new Response(api ? JSON.stringify({ message: OUTAGE_MESSAGE }) : OUTAGE_PAGE, {
    status: 503,
    headers: {
      'Content-Type': api ? 'application/json; charset=utf-8' : 'text/html; charset=utf-8',
      'Retry-After': '5',
      'Cache-Control': 'no-store',
    },
  })
}

/** @typedef {ReturnType<typeof createLifecycle>} Lifecycle */

/**
 * The express app. `metrics` (server/metrics.js) answers /metrics and times requests; `build` is the
 * Remix server build; `lifecycle` (createLifecycle) answers /readyz and is what `drain` stops.
 * @param {{ build: PortalBuild, logger: Logger, metrics: Metrics | undefined, lifecycle?: Lifecycle }} options
 * @returns {Express}
 */
export function createApp({ build, logger, metrics, lifecycle = createLifecycle(serverHooksOf(build)) }) {
  const hooks = serverHooksOf(build)
  // the app reaches the load context below the loaders through its own AsyncLocalStorage; a build
  // without hooks (a bench's hello-world app) reads it from the loaders' `context` only
  /** @type {ServerHooks['withLoadContext']} */
  const withLoadContext = hooks?.withLoadContext ?? ((_context, handle) => handle())
  const routeOf = routeMatcher(build.routes)
  const app = express()
  app.disable('x-powered-by')
  app.use((req, res, next) => {
    req.receivedAt = performance.now()
    lifecycle.inFlight.add(res)
    res.once('close', () => lifecycle.inFlight.delete(res))
    if (lifecycle.draining) res.setHeader('Connection', 'close')
    next()
  })
  // probes every few seconds: answered first, unlogged, and /livez without touching anything
  app.get('/livez', (req, res) => {
    res.set('Cache-Control', 'no-store').json({ live: true })
  })
  app.get('/readyz', (req, res, next) => {
    res.set('Cache-Control', 'no-store')
    if (lifecycle.draining) return void res.status(503).json({ ready: false, message: 'The server is stopping.' })
    lifecycle
      .databaseAnswers()
      .then(
        (answers) =>
          answers
            ? res.json({ ready: true })
            : res.status(503).json({ ready: false, message: 'The database does not answer.' }),
        next,
      )
  })
  app.use(compression())
  app.use(securityHeaders())
  app.use(`${build.publicPath}practice/`, practicePrecompressed(path.join(build.assetsBuildDirectory, 'practice')))
  app.use(
    build.publicPath,
    express.static(build.assetsBuildDirectory, { immutable: true, maxAge: '1y', setHeaders: practiceWorkerPolicy }),
  )
  // public/ holds a few fixed files: only a path under one of its names is looked for on disk, so a
  // page or /api request does not cost a file-system lookup first
  const publicFiles = express.static('public', { maxAge: '1h' })
  const publicNames = new Set(existsSync('public') ? readdirSync('public') : [])
  app.use((req, res, next) => (publicNames.has(req.path.split('/')[1]) ? publicFiles(req, res, next) : next()))
  app.use((req, res, next) => {
    const started = process.hrtime.bigint()
    const incoming = req.headers['x-request-id']
    /** @type {RequestRecord} */
    const record = { requestId: typeof incoming === 'string' && sane.test(incoming) ? incoming : randomUUID() }
    res.setHeader('X-Request-Id', record.requestId)
    req.headers[CLIENT_ADDRESS_HEADER] = req.socket.remoteAddress ?? ''
    // what the app gets of this request (app/load-context.ts): the record it adds the acting user to,
    // and the logger its own lines (a slow query, a list that failed) go through
    /** @type {AppLoadContext} */
    const context = { record, logger: logger.child({ requestId: record.requestId }) }
    req.loadContext = context
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
    withLoadContext(context, next)
  })
  if (metrics) app.get('/metrics', metrics.handler)
  app.all(
    '*',
    createRequestHandler({
      build,
      mode: process.env.NODE_ENV,
      getLoadContext: (req) => req.loadContext,
      // a failure while the database was away is an outage, not a fault: say so, and when to retry
      replaceServerError: async (req) =>
        (await lifecycle.databaseAwaySince(req.receivedAt)) ? outageResponse(req) : undefined,
    }),
  )
  // what Express refuses before the app sees it (a path whose %-escapes cannot be decoded), or an error
  // handed on: the /api answers its JSON, a page a line of text; never a stack trace
  app.use(
    /**
     * @param {unknown} error
     * @param {Request} req
     * @param {Response} res
     * @param {NextFunction} next
     */
    (error, req, res, next) => {
      if (res.headersSent) return next(error)
      const status = statusOf(error)
      const refused = status >= 400 && status < 500
      const message = !refused
        ? 'Something went wrong on our side; please try again.'
        : error instanceof URIError
          ? 'The address could not be read: it has a malformed %-escape.'
          : 'The request could not be read.'
      if (!refused) logger.error({ err: error, requestId: req.loadContext?.record.requestId }, 'request failed')
      res.status(refused ? status : 500)
      if (req.path.startsWith('/api/')) res.json({ message })
      else res.type('text/plain').send(message)
    },
  )
  return app
}

/**
 * The HTTP status an error handed to Express carries (`status` or `statusCode`, as http-errors and
 * body parsers set them); NaN when it has none.
 * @param {unknown} error
 */
function statusOf(error) {
  if (typeof error !== 'object' || error === null) return Number.NaN
  const status = 'status' in error ? error.status : undefined
  const statusCode = 'statusCode' in error ? error.statusCode : undefined
  return Number(status ?? statusCode)
}

/**
 * DRAIN_SECONDS: how long a stop waits for the requests in flight (10 s unless set).
 * @param {string} [value]
 */
export function drainSeconds(value = process.env.DRAIN_SECONDS) {
  const seconds = Number.parseFloat(value ?? '')
  return Number.isFinite(seconds) && seconds >= 0 ? seconds : 10
}

/**
 * DRAIN_DELAY_SECONDS: how long a stop keeps accepting connections, with /readyz already 503, before it
 * closes the listener (0 unless set): the time a load balancer needs to see /readyz and stop sending.
 * @param {string} [value]
 */
export function drainDelaySeconds(value = process.env.DRAIN_DELAY_SECONDS) {
  const seconds = Number.parseFloat(value ?? '')
  return Number.isFinite(seconds) && seconds >= 0 ? seconds : 0
}

/**
 * Stops `server` gracefully: /readyz answers 503 at once and every response not yet begun closes its
 * connection after it; for `delay` seconds the server still accepts connections and answers them the same
 * way (a load balancer that watches /readyz has stopped sending by then); then it accepts no more
 * connections, answers every request already received or arriving on a connection already open, and closes
 * connections left idle once nothing is in flight. What still runs `seconds` after the listener closed is
 * cut. Resolves with the number of requests cut.
 * @param {http.Server} server
 * @param {{ lifecycle: Lifecycle, logger: Logger, seconds?: number, delay?: number }} options
 * @returns {Promise<number>}
 */
export function drain(server, { lifecycle, logger, seconds = drainSeconds(), delay = drainDelaySeconds() }) {
  lifecycle.startDraining()
  const closing = delay > 0 ? new Promise((resolve) => setTimeout(resolve, delay * 1000)) : Promise.resolve()
  return closing.then(
    () =>
      new Promise((resolve) => {
        let cut = 0
        // Idle keep-alive connections are not closed at once, as http.Server's close() would: one closed as
        // its client sends the next request loses that request. Under load they carry one more request each,
        // answered with Connection: close; those still idle when nothing is in flight are closed then.
        const sweep = setInterval(() => lifecycle.inFlight.size === 0 && server.closeIdleConnections(), 50)
        const deadline = setTimeout(() => {
          cut = lifecycle.inFlight.size
          logger.warn({ cut, drainSeconds: seconds }, 'the drain ran out of time: requests still running were cut')
          server.closeAllConnections()
        }, seconds * 1000)
        net.Server.prototype.close.call(server, () => {
          clearInterval(sweep)
          clearTimeout(deadline)
          resolve(cut)
        })
      }),
  )
}

/**
 * Listens on PORT (and HOST when set) and resolves with the http.Server. SIGTERM or SIGINT (once or
 * many times: a process group's signal and the primary's both arrive) drain it (`drain`), then the app's
 * database pool is closed and the process exits 0.
 * @param {Express} app
 * @param {{ logger: Logger, lifecycle: Lifecycle, port?: number, host?: string }} options
 * @returns {Promise<http.Server>}
 */
export function listen(app, { logger, lifecycle, port = Number(process.env.PORT) || 3000, host = process.env.HOST }) {
  return new Promise((resolve, reject) => {
    const server = host ? app.listen(port, host) : app.listen(port)
    server.once('error', reject)
    server.once('listening', () => {
      let stopping = false
      /** @param {NodeJS.Signals} signal */
      const stop = (signal) => {
        if (stopping) return
        stopping = true
        const delay = drainDelaySeconds()
        logger.info(
          { signal, inFlight: lifecycle.inFlight.size, drainDelaySeconds: delay },
          delay > 0
            ? 'draining: /readyz says 503; new connections are taken until the delay ends'
            : 'draining: no new connections, finishing the requests in flight',
        )
        drain(server, { lifecycle, logger, delay })
          .then(() => lifecycle.closeDatabase())
          .catch((error) => logger.error({ err: error }, 'closing the database pool failed'))
          .finally(() => {
            logger.info('stopped')
            logger.flush(() => process.exit(0))
          })
      }
      for (const signal of ['SIGTERM', 'SIGINT']) process.on(signal, stop)
      logger.debug({ port, host }, 'listening')
      resolve(server)
    })
  })
}
