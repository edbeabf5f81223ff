import { receiveUpload } from '#app/modules/files/upload.server.ts'
import { apiAction, CONTENT_MANAGERS, methodNotAllowed } from '#app/utils/api.server.ts'

// POST /api/category/addCourseImage (multipart; the file under courseImage or courseDocument, the
// old client used both) → { message, fileInfo }. The image is attached by a later call.
export const action = apiAction(
  'POST',
  async ({ request, actor }) => {
    const { file } = await receiveUpload(request, {
      kind: 'courseImage',
      fileFields: ['courseImage', 'courseDocument'],
      actor,
    })
    return { message: 'Image uploaded.', fileInfo: file }
  },
  CONTENT_MANAGERS,
)
export const loader = () => methodNotAllowed(['POST'])
