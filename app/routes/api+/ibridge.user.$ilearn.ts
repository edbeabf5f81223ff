import type { LoaderFunctionArgs } from '@remix-run/node'
import { bridgeUser } from '#app/modules/bridge/service.server.ts'
import { apiRoute, methodNotAllowed } from '#app/utils/api.server.ts'

// GET /api/ibridge/user/{ilearn} → { token, user } (user as GET /api/user/profile answers it).
// Not a signed-in call: the bridge token in the path is the credential, spent by this call.
export const loader = apiRoute(async ({ params }: LoaderFunctionArgs) => bridgeUser(params.ilearn ?? ''))

export const action = () => methodNotAllowed(['GET'])
