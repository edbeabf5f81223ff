import { runSession } from '#app/modules/labs/session-exercises.server.ts'
import { apiAction, methodNotAllowed, readInput } from '#app/utils/api.server.ts'

// POST /api/labs/{labId}/sessions/{A|B} { exercise, sql } → { data }: one statement run in that session, answered
// when it finished or, still waiting on a lock, after about a second and a half.
export const action = apiAction('POST', async ({ request, params, actor }) => {
  const input = await readInput<{ exercise: unknown; sql: unknown }>(request)
  const view = await runSession(actor, params.labId ?? '', {
    exercise: input.exercise,
    session: params.session,
    sql: input.sql,
  })
  return { data: view }
})
export const loader = () => methodNotAllowed(['POST'])
