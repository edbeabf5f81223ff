import type { ActionFunctionArgs } from '@remix-run/node'
import { CheckBridgeCourseSchema } from '#app/modules/bridge/schema.ts'
import { checkBridgeCourse } from '#app/modules/bridge/service.server.ts'
import { apiRoute, methodNotAllowed, readJson } from '#app/utils/api.server.ts'

// POST /api/ibridge/checkIbridgeCourses { ilearn, courseId } → { token, course, courseId, assigned }.
// Not a signed-in call: the bridge token in `ilearn` is the credential, spent by this call.
export const action = apiRoute(async ({ request }: ActionFunctionArgs) => {
  if (request.method !== 'POST') return methodNotAllowed(['POST'])
  return checkBridgeCourse(await readJson(request, CheckBridgeCourseSchema))
})

export const loader = () => methodNotAllowed(['POST'])
