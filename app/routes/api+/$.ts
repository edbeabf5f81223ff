import { notFound } from '#app/modules/errors.ts'
import { apiRoute } from '#app/utils/api.server.ts'

// Any other /api path answers JSON, never an HTML page.
async function noSuchCall(): Promise<never> {
  throw notFound('No such API call.')
}
export const loader = apiRoute(noSuchCall)
export const action = apiRoute(noSuchCall)
