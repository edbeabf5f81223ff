import { listCertificates } from '#app/modules/certificates/service.server.ts'
import { apiLoader, methodNotAllowed } from '#app/utils/api.server.ts'

// GET /api/certificates[?userId=&courseId=&programId=&state=&q=&limit=] → { data }: the caller's own
// certificates, newest first; the admin side names a learner with `userId` to list theirs (a learner naming
// anyone else is refused).
export const loader = apiLoader(async ({ request, actor }) => {
  const query = Object.fromEntries(new URL(request.url).searchParams)
  const rows = await listCertificates(actor, { ...query, userId: query.userId || actor.id })
  return {
    data: rows.map(({ code, title, kind, issuedAt, state, verifyUrl, pdfUrl }) => ({
      code,
      title,
      kind,
      issuedAt,
      state,
      verifyUrl,
      pdfUrl,
    })),
  }
})
export const action = () => methodNotAllowed(['GET'])
