import { expandedAssessment, getAssessment } from '#app/modules/assessments/service.server.ts'
import { apiLoader, methodNotAllowed } from '#app/utils/api.server.ts'

// GET /api/assignmentDocuments/getIndividualAssignmentDocument/{id} → { data: [upload] }: a list whose
// first item the old client uses; for the admin side or the learner who sent it.
export const loader = apiLoader(async ({ params, actor }) => ({
  data: [expandedAssessment(await getAssessment(actor, params.id ?? ''))],
}))
export const action = () => methodNotAllowed(['GET'])
