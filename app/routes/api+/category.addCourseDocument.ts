import { canManageContent, ROLE } from '#app/modules/auth/roles.ts'
import { courseDocumentKind, receiveUpload } from '#app/modules/files/upload.server.ts'
import { apiAction, methodNotAllowed } from '#app/utils/api.server.ts'

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
  {
    allow: (roleId) => canManageContent(roleId) || roleId === ROLE.learner,
    denied: 'You do not have permission to upload this file.',
  },
)
export const loader = () => methodNotAllowed(['POST'])
