import type { ActionFunctionArgs, LoaderFunctionArgs } from '@remix-run/node'
import { pageAction } from '#app/utils/forms.server.ts'
import { pageLoader } from '#app/utils/pages.server.ts'
import { addDocumentAction, addDocumentLoader } from './__add-document.server.ts'
import { AddDocumentPage, addDocumentMeta } from './__add-document.tsx'

export { GeneralErrorBoundary as ErrorBoundary } from '#app/components/error-boundary.tsx'

export const meta = addDocumentMeta('Scenarios')
export const loader = (args: LoaderFunctionArgs) => pageLoader(args, addDocumentLoader)
export const action = (args: ActionFunctionArgs) => pageAction(args, (a) => addDocumentAction(a, 'Scenarios'))

export default function AddScenarios() {
  return <AddDocumentPage documentType="Scenarios" />
}
