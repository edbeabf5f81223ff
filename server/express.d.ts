import type { AppLoadContext } from '@remix-run/node'

// What the web server (server/web-server.js) keeps on each Express request it handles.
declare module 'express-serve-static-core' {
  interface Request {
    /** performance.now() when the request arrived: the first middleware sets it on every request */
    receivedAt: number
    /** what the app gets of this request: set before the app's handler, not for the health probes */
    loadContext?: AppLoadContext
  }
}
