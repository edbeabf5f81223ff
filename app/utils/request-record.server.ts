import type { AsyncLocalStorage } from 'node:async_hooks'

// The web server keeps one record per request (server/web-server.js) and logs it when the response is sent;
// the app adds the acting user's id. Reached through a global: the server runs outside the app's bundle.
type RequestRecord = { requestId: string; userId?: string }

export function noteActingUser(userId: string) {
  const records = (globalThis as Record<symbol, AsyncLocalStorage<RequestRecord> | undefined>)[
    Symbol.for('portal.request')
  ]
  const record = records?.getStore()
  if (record) record.userId = userId
}
