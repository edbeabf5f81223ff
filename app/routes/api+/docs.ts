import { REFERENCE_PAGE_POLICY, referencePage } from '#app/modules/api-docs/reference-page.server.ts'
import { apiRoute, methodNotAllowed } from '#app/utils/api.server.ts'

// GET /api/docs → the /api reference: a page of its own (Swagger UI on /api/openapi.json), so its
// script is loaded here and nowhere else.
export const loader = apiRoute(
  async () =>
    new Response(referencePage(), {
      headers: {
        'Content-Type': 'text/html; charset=utf-8',
        'Content-Security-Policy': REFERENCE_PAGE_POLICY,
        'Cache-Control': 'no-cache',
      },
    }),
)
export const action = () => methodNotAllowed(['GET'])
