import { courseDocumentKind, receiveUpload } from '#app/modules/files/upload.server.ts'
import { apiAction, COURSE_DOCUMENT_UPLOADERS, methodNotAllowed } from '#app/utils/api.server.ts'

// POST /api/category/addCourseDocument (multipart, courseDocument) → { message, fileInfo }. An
// admin uploads a course document or scenario; a learner their assessment, which
// stays private to them and the admin side.
export const action = apiAction(
  'POST',
  async ({ request, actor }) => {
    const { file } = await receiveUpload(request, {
      kind: courseDocumentKind(actor),
      fileFields: ['courseDocument'],
      actor,
    })
    return { message: 'Document uploaded.', fileInfo: file }
  },
  COURSE_DOCUMENT_UPLOADERS,
)
export const loader = () => methodNotAllowed(['POST'])
