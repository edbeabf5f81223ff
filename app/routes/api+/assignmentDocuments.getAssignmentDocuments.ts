import {
  expandedAssessment,
  expandedAssessmentStream,
  listAllAssessments,
} from '#app/modules/assessments/service.server.ts'
import { apiLoader, pageQuery, methodNotAllowed } from '#app/utils/api.server.ts'
import { streamedJsonList } from '#app/utils/json-stream.server.ts'

// GET /api/assignmentDocuments/getAssignmentDocuments → { data }: every learner upload, newest first,
// with its learner, course and reviewer expanded; one page with ?page=&size=, else all of them streamed as they are read;
// searched with ?q=. The admin side only.
export const loader = apiLoader(async ({ request, actor }) => {
  const url = new URL(request.url)
  const paging = pageQuery(url)
  const q = url.searchParams.get('q') ?? ''
  if (!paging) return streamedJsonList('data', expandedAssessmentStream(actor, { q }), request.signal)
  const { rows, total } = await listAllAssessments(actor, { q, ...paging.range })
  return { data: rows.map(expandedAssessment), total, page: paging.page, size: paging.size }
})
export const action = () => methodNotAllowed(['GET'])
