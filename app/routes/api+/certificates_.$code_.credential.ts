import { certificateCredential } from '#app/modules/certificates/service.server.ts'
import { apiLoader, methodNotAllowed } from '#app/utils/api.server.ts'

// GET /api/certificates/{code}/credential → { data: { jwt, credential } }: the signed Open Badges 3.0
// credential of one's own certificate (the admin side: anyone's), as a VC-JWT and decoded.
export const loader = apiLoader(async ({ params, actor }) => ({
  data: await certificateCredential(actor, params.code ?? ''),
}))
export const action = () => methodNotAllowed(['GET'])
