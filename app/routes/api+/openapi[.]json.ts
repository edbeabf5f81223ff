import { openApiText } from '#app/modules/api-docs/openapi.server.ts'
import { apiRoute, methodNotAllowed } from '#app/utils/api.server.ts'

// GET /api/openapi.json → the /api's OpenAPI 3.1 document (app/modules/api-docs/), read at /api/docs.
export const loader = apiRoute(
  async () =>
    new Response(openApiText(), {
      headers: { 'Content-Type': 'application/json; charset=utf-8', 'Cache-Control': 'public, max-age=300' },
    }),
)
export const action = () => methodNotAllowed(['GET'])
