import type { AppLoadContext } from '@remix-run/node'
import type { Logger } from 'pino'
import type { PoolUsage } from '#db/client.ts'

// What the web server (server/) and the app say to each other, and nothing else (ADR 034). The server
// imports nothing of the app: it loads the build (build/index.js), which bundles the app with its own
// copy of db/, and runs it in the same process. Per request it hands the app a load context (Remix's
// AppLoadContext, below), which every loader and action gets as `context`; once, at start, it takes the
// build's `serverHooks` (app/entry.server.tsx) to run each request in its context and to reach the
// database the routes use.

/** What the server logs as a request's line once its answer is sent; the app adds who made the request. */
export type RequestRecord = { requestId: string; userId?: string }

declare module '@remix-run/node' {
  interface AppLoadContext {
    /** this request's line of the request log (app/utils/request-record.server.ts writes the acting user) */
    record: RequestRecord
    /** the server's logger, its lines bound to this request's id (app/utils/log.server.ts) */
    logger: Logger
  }
}

/** What the build gives the web server at start (`build.entry.module.serverHooks`). */
export type ServerHooks = {
  /**
   * Runs `handle` (the rest of the server's handling of one request, the Remix app included) with `context`
   * reachable by code that has only the Request (app/utils/request-record.server.ts).
   */
  withLoadContext<T>(context: AppLoadContext, handle: () => T): T
  /** The app's database, for /readyz, the 503 of an outage, /metrics and the drain (ADR 026). */
  database: {
    /** Does it answer a statement within `timeoutMs`? Opens the pool on first use. */
    answers(timeoutMs?: number): Promise<boolean>
    /** Closes the pool. */
    close(): Promise<void>
    /** The pool's connections; none before the first statement. */
    poolUsage(): PoolUsage | undefined
  }
}
