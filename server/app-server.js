// The web server process that `portal serve` starts (server/web-server.js), tied to its parent: if the
// parent dies without stopping us (kill -9, a crash), the IPC channel closes and we stop, so no server
// is left holding the port.
//
// WEB_CONCURRENCY workers (default: one per core; 1: no cluster) share the port through node:cluster.
// The primary restarts a worker that dies, after a short wait that grows while they keep dying, and
// stops them all when it is told to stop, giving each DRAIN_SECONDS to finish its requests (ADR 026).
// Each worker gets its share of DB_POOL_MAX connections.
import cluster from 'node:cluster'
import os from 'node:os'
import { createMetrics, serveClusterMetrics } from './metrics.js'
import {
  createApp,
  createLifecycle,
  createLogger,
  drainDelaySeconds,
  drainSeconds,
  listen,
  loadBuild,
  serverHooksOf,
} from './web-server.js'

const buildPath = process.argv[2] ?? 'build/index.js'
const workers = Number.parseInt(process.env.WEB_CONCURRENCY ?? '', 10) || os.availableParallelism()

if (workers > 1 && cluster.isPrimary) primary(workers)
else await serveHere()

async function serveHere() {
  // a worker's channel is to the primary, a lone server's to `portal serve`: either way, gone means stop
  process.on('disconnect', () => process.exit(0))
  const logger = createLogger()
  try {
    const build = await loadBuild(buildPath)
    const database = serverHooksOf(build)?.database
    const lifecycle = createLifecycle({ database })
    const metrics = createMetrics({ poolUsage: database?.poolUsage })
    await listen(createApp({ build, logger, metrics, lifecycle }), { logger, lifecycle })
  } catch (error) {
    logger.fatal({ err: error }, 'the web server could not start')
    process.exit(1)
  }
}

/**
 * The cluster's primary: `count` workers, restarted when they die, stopped when it is told to stop.
 * @param {number} count
 */
function primary(count) {
  const logger = createLogger()
  const poolMax = Number.parseInt(process.env.DB_POOL_MAX ?? '', 10) || 10
  const env = { DB_POOL_MAX: String(Math.max(2, Math.ceil(poolMax / count))) }
  serveClusterMetrics()
  let stopping = false
  let served = false
  let deaths = 0
  let lastDeath = 0
  const fork = () => cluster.fork(env)

  cluster.on('listening', () => {
    served = true
  })
  cluster.on('exit', (worker, code, signal) => {
    if (stopping) {
      if (Object.keys(cluster.workers ?? {}).length === 0) process.exit(process.exitCode ?? 0)
      return
    }
    // a worker that never got to serve (the port is taken, the build is broken) would fail again: give up
    if (!served) {
      stopping = true
      for (const other of Object.values(cluster.workers ?? {})) other?.process.kill('SIGTERM')
      process.exitCode = 1
      if (Object.keys(cluster.workers ?? {}).length === 0) process.exit(1)
      return
    }
    // a worker that lived a minute starts the count again; a crash loop waits up to 30 s between tries
    const now = Date.now()
    deaths = now - lastDeath > 60_000 ? 1 : deaths + 1
    lastDeath = now
    const wait = Math.min(30_000, 100 * 2 ** (deaths - 1))
    logger.error(
      { workerPid: worker.process.pid, code, signal, restartInMs: wait },
      'a web server worker stopped; restarting it',
    )
    setTimeout(() => !stopping && fork(), wait)
  })

  const stop = () => {
    if (stopping) return
    stopping = true
    const running = Object.values(cluster.workers ?? {})
    if (running.length === 0) process.exit(0)
    for (const worker of running) worker?.process.kill('SIGTERM')
    // the workers take connections for DRAIN_DELAY_SECONDS, then drain for at most DRAIN_SECONDS; a worker
    // stuck past that is left behind
    setTimeout(() => process.exit(0), (drainDelaySeconds() + drainSeconds() + 5) * 1000).unref()
  }
  process.on('SIGTERM', stop)
  process.on('SIGINT', stop)
  process.on('disconnect', stop)
  for (let i = 0; i < count; i++) fork()
}
