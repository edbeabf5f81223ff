import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from '@remix-run/node'
import { useActionData, useLoaderData } from '@remix-run/react'
import { AddDocumentForm } from '#app/components/admin/add-document-form.tsx'
import { GeneralErrorBoundary } from '#app/components/error-boundary.tsx'
import { PRODUCT_NAME } from '#app/utils/brand.ts'
import { type FormReply, pageAction } from '#app/utils/forms.server.ts'
import { pageLoader } from '#app/utils/pages.server.ts'
import { addDocumentAction, addDocumentLoader } from './__add-document.server.ts'

export const meta: MetaFunction = () => [{ title: `Add Documents · ${PRODUCT_NAME}` }]

export const loader = (args: LoaderFunctionArgs) => pageLoader(args, loadPage)

async function loadPage({ request }: LoaderFunctionArgs) {
  return addDocumentLoader(request)
}

export const action = (args: ActionFunctionArgs) => pageAction(args, runAction)

async function runAction({ request }: ActionFunctionArgs) {
  return addDocumentAction(request, 'Document')
}

export default function AddDocuments() {
  const { courses, courseId, upload } = useLoaderData<typeof loader>()
  const actionData = useActionData<FormReply>()
  // another ?courseId= is another preselection: start the form afresh
  return (
    <AddDocumentForm
      key={courseId}
      documentType="Document"
      courses={courses}
      courseId={courseId}
      upload={upload}
      lastResult={actionData?.result}
    />
  )
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />
}
