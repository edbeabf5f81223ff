import { PassThrough } from 'node:stream'
import { createReadableStreamFromReadable, type EntryContext } from '@remix-run/node'
import { RemixServer } from '@remix-run/react'
import { isbot } from 'isbot'
import { renderToPipeableStream } from 'react-dom/server'
import { databaseAnswers, disconnect, poolUsage } from '#db/client.ts'
import type { ServerHooks } from './load-context.ts'
import { closeAllPairs } from './modules/labs/sessions.server.ts'
import { getEnv } from './utils/env.server.ts'
import { NonceProvider } from './utils/nonce.ts'
import { withLoadContext } from './utils/request-record.server.ts'
import { createNonce, pagePolicy, pageRunsPractice } from './utils/security-headers.server.ts'

// Remix's default server entry (@remix-run/dev's entry.server.node.tsx), plus the page's
// Content-Security-Policy: a nonce per page, on every script Remix and React write into it (ADR 028),
// and the hooks the web server takes from the build (ADR 034).

const ABORT_DELAY = 5_000

/**
 * What the web server (server/) takes from this build at start, beside Remix's own exports
 * (app/load-context.ts). The database is the one the routes use: the build bundles db/client.ts, so
 * this is the only copy of it in the web server's process, and the pool it reports is the pool they use.
 */
export const serverHooks: ServerHooks = {
  withLoadContext,
  database: { answers: databaseAnswers, close: closeDatabases, poolUsage },
}

/**
 * Once the server has drained: learners' two-session pairs close (their sessions end, their locks and databases
 * go, which nobody would do once this process is gone), then the portal's pool.
 */
async function closeDatabases() {
  await closeAllPairs().catch(() => undefined)
  await disconnect()
}

export default function handleRequest(
  request: Request,
  responseStatusCode: number,
  responseHeaders: Headers,
  remixContext: EntryContext,
) {
  const nonce = createNonce()
  responseHeaders.set(
    'Content-Security-Policy',
    pagePolicy({ nonce, videoHosts: getEnv().VIDEO_HOSTS, practice: pageRunsPractice(remixContext) }),
  )
  // a crawler gets the whole page at once; a browser gets the shell first and the rest as it is ready
  const whole = isbot(request.headers.get('user-agent') ?? '') || remixContext.isSpaMode

  return new Promise<Response>((resolve, reject) => {
    let shellRendered = false
    const ready = () => {
      shellRendered = true
      const body = new PassThrough()
      responseHeaders.set('Content-Type', 'text/html')
      resolve(
        new Response(createReadableStreamFromReadable(body), { headers: responseHeaders, status: responseStatusCode }),
      )
      pipe(body)
    }
    const { pipe, abort } = renderToPipeableStream(
      <NonceProvider value={nonce}>
        <RemixServer context={remixContext} url={request.url} abortDelay={ABORT_DELAY} nonce={nonce} />
      </NonceProvider>,
      {
        nonce,
        ...(whole ? { onAllReady: ready } : { onShellReady: ready }),
        onShellError(error: unknown) {
          reject(error)
        },
        onError(error: unknown) {
          responseStatusCode = 500
          // errors of the shell reject and are logged by Remix; these came while streaming the rest
          if (shellRendered) console.error(error)
        },
      },
    )
    setTimeout(abort, ABORT_DELAY)
  })
}
