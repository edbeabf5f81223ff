// Prometheus metrics of the web server: request durations per route, the database pool (the app's, as
// its build reports it: app/entry.server.tsx) and Node's own (event-loop lag, memory, CPU).
// Under a cluster every worker keeps its own and the primary adds them up (prom-client's
// AggregatorRegistry): the worker a scrape lands on asks the primary over the cluster's IPC channel.
import cluster from 'node:cluster'
import { timingSafeEqual } from 'node:crypto'
import client from 'prom-client'

/**
 * @import { IncomingHttpHeaders } from 'node:http'
 * @import { Request, Response } from 'express'
 * @import { ServerHooks } from '../app/load-context.ts'
 */

const ASK = 'portal:metrics?'
const ANSWER = 'portal:metrics!'

/**
 * What a worker and the primary say over the cluster's IPC channel: a worker asks (ASK, with its own id
 * for the question), the primary answers with every worker's metrics added up, or why it could not.
 * @typedef {{ type: typeof ASK, id: number }} MetricsQuestion
 * @typedef {{ type: typeof ANSWER, id: number, text?: string, error?: string }} MetricsAnswer
 */

/**
 * Is `message` (anything a process may send over the IPC channel) one of ours of this `type`?
 * @param {unknown} message
 * @param {string} type
 */
const hasType = (message, type) =>
  typeof message === 'object' && message !== null && 'type' in message && message.type === type

/** @type {(message: unknown) => message is MetricsQuestion} */
const isQuestion = (message) => hasType(message, ASK)

/** @type {(message: unknown) => message is MetricsAnswer} */
const isAnswer = (message) => hasType(message, ANSWER)

/**
 * May this request read /metrics? With the right METRICS_TOKEN as a Bearer token, or from loopback, not through a proxy.
 * @param {{ remoteAddress: string | undefined, headers: IncomingHttpHeaders }} from
 * @param {string} [token]
 */
export function metricsAllowed({ remoteAddress, headers }, token = process.env.METRICS_TOKEN) {
  const authorization = headers.authorization
  if (token && typeof authorization === 'string') {
    const given = Buffer.from(authorization.replace(/^Bearer\s+/i, ''))
    const wanted = Buffer.from(token)
    if (given.length === wanted.length && timingSafeEqual(given, wanted)) return true
  }
  // a reverse proxy on this host makes every client look local: a forwarded request is not a local one
  if (headers['x-forwarded-for'] || headers.forwarded || headers['x-real-ip']) return false
  return /^(127\.\d+\.\d+\.\d+|::1|::ffff:127\.\d+\.\d+\.\d+)$/.test(remoteAddress ?? '')
}

/**
 * `poolUsage`: the app's database pool now (undefined before its first connection, or without a database).
 * @param {{ poolUsage?: ServerHooks['database']['poolUsage'] }} [app]
 */
export function createMetrics({ poolUsage } = {}) {
  client.collectDefaultMetrics()
  // a worker answers the primary's requests for its metrics (the constructor sets that up)
  if (cluster.isWorker) new client.AggregatorRegistry()
  const duration = new client.Histogram({
    name: 'http_request_duration_seconds',
    help: 'Time from a request arriving to its response being sent, by method, Remix route id and status class.',
    labelNames: ['method', 'route', 'status'],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  })
  new client.Gauge({
    name: 'portal_db_pool_connections',
    help: 'Database pool of this process: size (open connections), available (idle), using (lent out), waiting (requests queued for one), max.',
    labelNames: ['state'],
    collect() {
      const usage = poolUsage?.()
      // before its first query a process has no pool yet: nothing open, the configured max
      const max = usage?.max ?? (Number.parseInt(process.env.DB_POOL_MAX ?? '', 10) || 10)
      for (const state of /** @type {const} */ (['size', 'available', 'using', 'waiting']))
        this.set({ state }, usage?.[state] ?? 0)
      this.set({ state: 'max' }, max)
    },
  })

  const text = () => (cluster.isWorker ? askPrimary() : client.register.metrics())
  return {
    /**
     * @param {string} method
     * @param {string} route
     * @param {number} status
     * @param {number} seconds
     */
    observe(method, route, status, seconds) {
      duration.observe({ method, route, status: `${Math.floor(status / 100)}xx` }, seconds)
    },
    /**
     * @param {Request} req
     * @param {Response} res
     */
    async handler(req, res) {
      if (!metricsAllowed({ remoteAddress: req.socket.remoteAddress, headers: req.headers })) {
        res.status(403).json({ message: 'Metrics are for loopback or a METRICS_TOKEN.' })
        return
      }
      try {
        res.type(client.register.contentType).send(await text())
      } catch (error) {
        res.status(503).json({ message: `Metrics are not available: ${messageOf(error)}` })
      }
    },
  }
}

/** @typedef {ReturnType<typeof createMetrics>} Metrics */

/** @param {unknown} error */
const messageOf = (error) => (error instanceof Error ? error.message : String(error))

let asked = 0
/** @type {Map<number, (answer: MetricsAnswer) => void>} */
const waiting = new Map()

/**
 * In a worker: every worker's metrics added up, from the primary.
 * @returns {Promise<string>}
 */
function askPrimary() {
  const send = process.send?.bind(process)
  if (!send) return Promise.reject(new Error('this process is no cluster worker'))
  if (!waiting.size)
    process.on('message', function answer(message) {
      if (!isAnswer(message)) return
      waiting.get(message.id)?.(message)
      waiting.delete(message.id)
      if (!waiting.size) process.off('message', answer)
    })
  const id = ++asked
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      waiting.delete(id)
      reject(new Error('the primary did not answer'))
    }, 10_000)
    waiting.set(id, (message) => {
      clearTimeout(timer)
      if (message.error !== undefined) reject(new Error(message.error))
      else resolve(message.text ?? '')
    })
    /** @type {MetricsQuestion} */
    const question = { type: ASK, id }
    send(question)
  })
}

/** In the cluster's primary: answers the workers' requests for every worker's metrics added up. */
export function serveClusterMetrics() {
  const aggregator = new client.AggregatorRegistry()
  cluster.on('message', (worker, message) => {
    if (!isQuestion(message)) return
    /** @param {MetricsAnswer} answer */
    const answer = (answer) => worker.isConnected() && worker.send(answer)
    aggregator.clusterMetrics().then(
      (text) => answer({ type: ANSWER, id: message.id, text }),
      (error) => answer({ type: ANSWER, id: message.id, error: messageOf(error) }),
    )
  })
}
