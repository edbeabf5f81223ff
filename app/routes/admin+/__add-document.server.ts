import { parseWithZod } from '@conform-to/zod'
import { json } from '@remix-run/node'
import { kindOf } from '#app/modules/content/dto.ts'
import { documentMessage } from '#app/modules/content/messages.ts'
import { AddDocumentSchema, type DocumentType } from '#app/modules/content/schema.ts'
import { addDocument } from '#app/modules/content/service.server.ts'
import { listCourseTitles } from '#app/modules/courses/catalogue.server.ts'
import { uploadRules } from '#app/modules/files/types.server.ts'
import { isUuid } from '#app/modules/ids.ts'
import { submitUploadForm } from '#app/utils/forms.server.ts'
import { requireContentManager } from '#app/utils/session.server.ts'
import { redirectWithSuccess } from '#app/utils/toast.server.ts'

// Add Documents and Add Scenarios: one form, one action; the page decides
// the type, so a document can never be filed as a scenario by editing the hidden field.

/** The courses to choose from, and the one named by `?courseId=` when it is one of them. */
export async function addDocumentLoader({ request }: { request: Request }) {
  const user = await requireContentManager(request)
  const { rows: courses } = await listCourseTitles(user)
  const wanted = new URL(request.url).searchParams.get('courseId') ?? ''
  const courseId = isUuid(wanted) && courses.some((c) => c._id === wanted) ? wanted : ''
  return json({ courses, courseId, upload: uploadRules('document') })
}

const parse = (formData: FormData) => parseWithZod(formData, { schema: AddDocumentSchema })

/**
 * The file comes with the form (no JavaScript, multipart field `courseDocument`) or was uploaded
 * before through /api/category/addCourseDocument (its `{ key, link, name }` JSON in `document`).
 * Success goes to the course's documents or scenarios tab.
 */
export async function addDocumentAction({ request }: { request: Request }, documentType: DocumentType) {
  const user = await requireContentManager(request)
  const added = await submitUploadForm(request, {
    upload: { kind: 'document', fileField: 'courseDocument', actor: user },
    field: 'document',
    parse,
    fixed: { documentType },
    run: (value) => addDocument(user, value),
  })
  if (!added.ok) return added.response
  const scenario = documentType === 'Scenarios'
  return redirectWithSuccess(
    `/admin/course/${added.value.courseId}?tab=${scenario ? 'scenarios' : 'documents'}`,
    documentMessage(kindOf(documentType), 'added'),
  )
}
