import { expandedAssessment, listAllAssessments } from '#app/modules/assessments/service.server.ts'
import { apiLoader, pageQuery, methodNotAllowed } from '#app/utils/api.server.ts'

// GET /api/assignmentDocuments/getAssignmentDocuments → { data }: every learner upload, newest first,
// expanded as spec §3 says; one page with ?page=&size=, searched with ?q=. The admin side only.
export const loader = apiLoader(async ({ request, actor }) => {
  const url = new URL(request.url)
  const paging = pageQuery(url)
  const { rows, total } = await listAllAssessments(actor, { q: url.searchParams.get('q') ?? '', ...paging?.range })
  const data = rows.map(expandedAssessment)
  return paging ? { data, total, page: paging.page, size: paging.size } : { data }
})
export const action = () => methodNotAllowed(['GET'])
