import { json, type LoaderFunctionArgs } from '@remix-run/node'
import { getPracticeDataset } from '#app/modules/labs/practice.server.ts'
import { pageLoader } from '#app/utils/pages.server.ts'
import { requireUser } from '#app/utils/session.server.ts'

// GET /course/:courseId/lab/:labId/practice?v=<version>: the lab's practice dataset (its statements and the CSV files
// they copy from) for the learner's browser, to whoever may open the lab page and no one else. The lab page links the
// current version: that address never changes what it answers, so the browser keeps it for good; any other (no
// version, an old one) answers the current dataset and is asked again each time. A refusal is its message as text.

/** How long a browser keeps the versioned dataset: a year, never asked again (a new dataset has a new address). */
const KEPT = 'private, max-age=31536000, immutable'

export const loader = (args: LoaderFunctionArgs) => pageLoader(args, serve, { plainText: true })

async function serve({ request, params }: LoaderFunctionArgs) {
  const user = await requireUser(request)
  const { version, dataset } = await getPracticeDataset(user, params.courseId ?? '', params.labId ?? '')
  const asked = new URL(request.url).searchParams.get('v')
  return json({ version, ...dataset }, { headers: { 'Cache-Control': asked === version ? KEPT : 'private, no-cache' } })
}
