import { checkSessions } from '#app/modules/labs/session-exercises.server.ts'
import { apiAction, methodNotAllowed, readInput } from '#app/utils/api.server.ts'

// POST /api/labs/{labId}/sessions/check { exercise } → { data }: the two sessions' log graded against the steps,
// and kept as an attempt.
export const action = apiAction('POST', async ({ request, params, actor }) => {
  const input = await readInput<{ exercise: unknown }>(request)
  return { data: await checkSessions(actor, params.labId ?? '', input.exercise) }
})
export const loader = () => methodNotAllowed(['POST'])
