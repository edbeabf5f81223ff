import { getFormProps, useForm, type SubmissionResult } from '@conform-to/react'
import { parseWithZod } from '@conform-to/zod'
import { Form, Link, useNavigation } from '@remix-run/react'
import { useState } from 'react'
import { FormFileField, FormSelectField } from '#app/components/forms/fields.tsx'
import { Breadcrumb } from '#app/components/ui/breadcrumb.tsx'
import { EmptyState } from '#app/components/ui/empty-state.tsx'
import { type UploadRules } from '#app/components/ui/file-upload.tsx'
import { FormFooter } from '#app/components/ui/form-footer.tsx'
import { AddDocumentSchema, type AddDocumentInput, type DocumentType } from '#app/modules/content/schema.ts'

export const TEXTS: Record<DocumentType, { title: string; fileLabel: string; tab: string }> = {
  Document: { title: 'Add Documents', fileLabel: 'Document', tab: 'documents' },
  Scenarios: { title: 'Add Scenarios', fileLabel: 'Scenario', tab: 'scenarios' },
}

export type AddDocumentFormProps = {
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
  const navigation = useNavigation()
  const [uploading, setUploading] = useState(false)
  const [form, fields] = useForm<AddDocumentInput>({
    id: `add-${text.tab}`,
    lastResult,
    defaultValue: { courseId, documentType },
    onValidate: ({ formData }) => parseWithZod(formData, { schema: AddDocumentSchema }),
    shouldValidate: 'onBlur',
    shouldRevalidate: 'onInput',
  })
  const saving = navigation.state !== 'idle' && navigation.formMethod === 'POST'
  const course = courses.find((c) => c._id === courseId)
  const back = course ? `/admin/course/${course._id}?tab=${text.tab}` : '/admin/courses'

  return (
    <div className="max-w-2xl">
      <Breadcrumb
        items={[
          { label: 'Courses', to: '/admin/courses' },
          ...(course ? [{ label: course.title, to: back }] : []),
          { label: text.title },
        ]}
      />
      <h1 id={`${form.id}-heading`} className="mt-2 text-2xl font-bold">
        {text.title}
      </h1>
      {courses.length === 0 ? (
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
      ) : (
        <Form
          method="post"
          encType="multipart/form-data"
          className="card mt-6 space-y-2 p-6"
          aria-labelledby={`${form.id}-heading`}
          {...getFormProps(form)}
        >
          {/* first in the form, so a file refused on arrival still leaves what came before it readable */}
          <input type="hidden" name="documentType" value={documentType} />
          <FormSelectField
            meta={fields.courseId}
            label="Course"
            placeholder="Select a course"
            options={courses.map((c) => ({ value: c._id, label: c.title }))}
          />
          <FormFileField
            meta={fields.document}
            label={text.fileLabel}
            kind="document"
            upload={upload}
            onUploadingChange={setUploading}
          />
          <FormFooter
            errorId={form.errorId}
            error={form.errors?.[0]}
            saving={saving}
            busy={uploading}
            cancelTo={back}
          />
        </Form>
      )}
    </div>
  )
}
