import { receiveUpload } from '#app/modules/files/upload.server.ts'
import { apiAction, CONTENT_MANAGERS, methodNotAllowed } from '#app/utils/api.server.ts'

// POST /api/category/addCertificateSignature (multipart; the file under certificateSignature) → { message,
// fileInfo }: the issuer's signature for a course's or program's certificates, attached by a later call
// (editCourseDetails, editProgram) or the certificate settings form.
export const action = apiAction(
  'POST',
  async ({ request, actor }) => {
    const { file } = await receiveUpload(request, {
      kind: 'certificateSignature',
      fileFields: ['certificateSignature'],
      actor,
    })
    return { message: 'Signature uploaded.', fileInfo: file }
  },
  CONTENT_MANAGERS,
)
export const loader = () => methodNotAllowed(['POST'])
