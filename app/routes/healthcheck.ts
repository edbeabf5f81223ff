import { json } from '@remix-run/node'
import { apiRoute } from '#app/utils/api.server.ts'
import { query, sql } from '#db/client.ts'

// For load balancers and the start script: the app answers and reaches its database.
const SELECT_ONE = sql('SELECT 1')

export const loader = apiRoute(async () => {
  try {
    await query(SELECT_ONE, {})
    return json({ ok: true }, { headers: { 'Cache-Control': 'no-store' } })
  } catch {
    // eslint-disable-next-line portal/one-error-path -- the health check's own answer, for a balancer: no refusal
    return json({ ok: false, message: 'The database is not reachable.' }, { status: 503 })
  }
})
