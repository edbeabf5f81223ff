import type { UploadAssessmentInput } from '#app/modules/assessments/schema.ts'
import { uploadAssessment } from '#app/modules/assessments/service.server.ts'
import { apiAction, ASSESSMENT_UPLOADERS, methodNotAllowed, readInput } from '#app/utils/api.server.ts'

// POST /api/assignmentDocuments/uploadAssignmentDocument { courseId, userId, relatedScenarioId, document }
// → { message, data }: registers a file uploaded with addCourseDocument against a scenario.
export const action = apiAction(
  'POST',
  async ({ request, actor }) => ({
    message: 'Assessment submitted.',
    data: await uploadAssessment(actor, await readInput<UploadAssessmentInput>(request)),
  }),
  ASSESSMENT_UPLOADERS,
)
export const loader = () => methodNotAllowed(['POST'])
