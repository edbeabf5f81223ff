import type { ActionFunctionArgs } from '@remix-run/node'
import { closeSessions, sessionsView, startSessions } from '#app/modules/labs/session-exercises.server.ts'
import { apiLoader, apiRoute, methodNotAllowed, readInput, requireApiUser } from '#app/utils/api.server.ts'

// The caller's two sessions of a two-session exercise: GET [?exercise=] → { data } (null when none is open),
// POST { exercise } → { data } (opened; Start over), DELETE → { message } (closed, whichever exercise).
export const loader = apiLoader(async ({ request, params, actor }) => ({
  data: await sessionsView(actor, params.labId ?? '', new URL(request.url).searchParams.get('exercise') ?? undefined),
}))

export const action = apiRoute(async ({ request, params }: ActionFunctionArgs) => {
  if (request.method !== 'POST' && request.method !== 'DELETE') return methodNotAllowed(['GET', 'POST', 'DELETE'])
  const actor = await requireApiUser(request)
  if (request.method === 'DELETE') {
    await closeSessions(actor)
    return { message: 'Your two sessions are closed.' }
  }
  const input = await readInput<{ exercise: unknown }>(request)
  return { data: await startSessions(actor, params.labId ?? '', input.exercise) }
})
