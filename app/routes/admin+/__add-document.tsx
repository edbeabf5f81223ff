import { type MetaFunction } from '@remix-run/node'
import { useActionData, useLoaderData } from '@remix-run/react'
import { AddDocumentForm, TEXTS } from '#app/components/admin/add-document-form.tsx'
import { type DocumentType } from '#app/modules/content/schema.ts'
import { PRODUCT_NAME } from '#app/utils/brand.ts'
import { type FormReply } from '#app/utils/forms.server.ts'
import type { addDocumentLoader } from './__add-document.server.ts'

// The page of Add Documents and Add Scenarios; each route names its type (its loader and action are
// in __add-document.server.ts).

/** The page's title. */
export const addDocumentMeta =
  (documentType: DocumentType): MetaFunction =>
  () => [{ title: `${TEXTS[documentType].title} · ${PRODUCT_NAME}` }]

/** The page, on its loader's data and its action's reply. */
export function AddDocumentPage({ documentType }: { documentType: DocumentType }) {
  const { courses, courseId, upload } = useLoaderData<typeof addDocumentLoader>()
  const actionData = useActionData<FormReply>()
  // another ?courseId= is another preselection: start the form afresh
  return (
    <AddDocumentForm
      key={courseId}
      documentType={documentType}
      courses={courses}
      courseId={courseId}
      upload={upload}
      lastResult={actionData?.result}
    />
  )
}
