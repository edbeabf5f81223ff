import { json } from '@remix-run/node'
import { query, sql } from '#db/client.ts'

// For load balancers and the start script: the app answers and reaches its database.
const SELECT_ONE = sql('SELECT 1')

export async function loader() {
  try {
    await query(SELECT_ONE, {})
    return json({ ok: true }, { headers: { 'Cache-Control': 'no-store' } })
  } catch {
    return json({ ok: false, message: 'The database is not reachable.' }, { status: 503 })
  }
}
