import { json } from '@remix-run/node'
import { sequelize } from '#db/client.ts'

// For load balancers and the start script: the app answers and reaches its database.
export async function loader() {
  try {
    await (await sequelize()).query('SELECT 1')
    return json({ ok: true }, { headers: { 'Cache-Control': 'no-store' } })
  } catch {
    return json({ ok: false, message: 'The database is not reachable.' }, { status: 503 })
  }
}
