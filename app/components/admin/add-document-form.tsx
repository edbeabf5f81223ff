import { type SubmissionResult } from '@conform-to/react'
import { Link } from '@remix-run/react'
import { FormFileField, FormSelectField } from '#app/components/forms/fields.tsx'
import { PageForm } from '#app/components/forms/page-form.tsx'
import { useZodForm } from '#app/components/forms/use-zod-form.ts'
import { EmptyState } from '#app/components/ui/empty-state.tsx'
import { type UploadRules } from '#app/components/ui/file-upload.tsx'
import { AddDocumentSchema, type DocumentType } from '#app/modules/content/schema.ts'

export const TEXTS: Record<DocumentType, { title: string; fileLabel: string; tab: string }> = {
  Document: { title: 'Add Documents', fileLabel: 'Document', tab: 'documents' },
  Scenarios: { title: 'Add Scenarios', fileLabel: 'Scenario', tab: 'scenarios' },
}

type AddDocumentFormProps = {
  documentType: DocumentType
  courses: { _id: string; title: string }[]
  /** the course named by `?courseId=`, preselected; '' for none */
  courseId: string
  /** the file picker's accept and hint (uploadRules('document')) */
  upload: UploadRules
  lastResult?: SubmissionResult<string[]>
}

/**
 * The Add Documents and Add Scenarios form: a course and a file. With JavaScript the file is uploaded
 * as soon as it is chosen (Save waits for it); without, it travels with the form as `courseDocument`.
 */
export function AddDocumentForm({ documentType, courses, courseId, upload, lastResult }: AddDocumentFormProps) {
  const text = TEXTS[documentType]
  const [form, fields] = useZodForm(AddDocumentSchema, {
    id: `add-${text.tab}`,
    lastResult,
    defaultValue: { courseId, documentType },
  })
  const course = courses.find((c) => c._id === courseId)
  const back = course ? `/admin/course/${course._id}?tab=${text.tab}` : '/admin/courses'

  return (
    <PageForm
      form={form}
      heading={text.title}
      breadcrumb={[
        { label: 'Courses', to: '/admin/courses' },
        ...(course ? [{ label: course.title, to: back }] : []),
        { label: text.title },
      ]}
      multipart
      cancelTo={back}
      instead={
        courses.length === 0 ? (
          <div className="card mt-6">
            <EmptyState
              title="No courses yet"
              text={`A ${text.fileLabel.toLowerCase()} belongs to a course. Add a course first, then come back.`}
              action={
                <Link to="/admin/newCourse" className="btn-primary">
                  Add New Course
                </Link>
              }
            />
          </div>
        ) : null
      }
    >
      {/* first in the form, so a file refused on arrival still leaves what came before it readable */}
      <input type="hidden" name="documentType" value={documentType} />
      <FormSelectField
        meta={fields.courseId}
        label="Course"
        placeholder="Select a course"
        options={courses.map((c) => ({ value: c._id, label: c.title }))}
      />
      <FormFileField meta={fields.document} label={text.fileLabel} kind="document" upload={upload} />
    </PageForm>
  )
}
