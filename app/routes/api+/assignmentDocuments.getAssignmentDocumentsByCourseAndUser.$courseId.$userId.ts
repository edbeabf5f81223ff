import { listAssessments } from '#app/modules/assessments/service.server.ts'
import { apiLoader, methodNotAllowed } from '#app/utils/api.server.ts'

// GET /api/assignmentDocuments/getAssignmentDocumentsByCourseAndUser/{courseId}/{userId} → { data }.
export const loader = apiLoader(async ({ params, actor }) => ({
  data: await listAssessments(actor, { courseId: params.courseId ?? '', userId: params.userId ?? '' }),
}))
export const action = () => methodNotAllowed(['GET'])
