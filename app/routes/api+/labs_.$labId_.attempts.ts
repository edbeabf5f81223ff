import { attemptExercise } from '#app/modules/labs/service.server.ts'
import { apiAction, methodNotAllowed, readInput } from '#app/utils/api.server.ts'

// POST /api/labs/{labId}/attempts { exercise, sql } → { data }: the attempt graded and kept.
export const action = apiAction('POST', async ({ request, params, actor }) => {
  const input = await readInput<{ exercise: unknown; sql: unknown }>(request)
  const graded = await attemptExercise(actor, { labId: params.labId ?? '', exercise: input.exercise, sql: input.sql })
  return { data: graded }
})
export const loader = () => methodNotAllowed(['POST'])
