import { json, redirect, type LoaderFunctionArgs, type MetaFunction } from '@remix-run/node'
import { Form, useLoaderData } from '@remix-run/react'
import { GeneralErrorBoundary } from '#app/components/error-boundary.tsx'
import { canonicalCode, groupedCode } from '#app/modules/certificates/facts.ts'
import { PRODUCT_NAME } from '#app/utils/brand.ts'
import { pageLoader } from '#app/utils/pages.server.ts'

// One page for checking any certificate by its code, typed by hand from a printed one: a GET form, so it
// works without JavaScript; a code that reads as one goes to its verify page.

export const meta: MetaFunction = () => [
  { title: `Check a certificate · ${PRODUCT_NAME}` },
  { name: 'robots', content: 'noindex, nofollow' },
]

const NOT_A_CODE = 'A certificate code has 26 letters and digits, in groups of four: 7KQ2-M9XD-…'

export const loader = (args: LoaderFunctionArgs) => pageLoader(args, loadPage)

async function loadPage({ request }: LoaderFunctionArgs) {
  const typed = new URL(request.url).searchParams.get('code')
  if (typed === null) return json({ typed: '', error: null })
  const code = canonicalCode(typed.slice(0, 100))
  if (code) return redirect(`/verify/${groupedCode(code)}`)
  return json({ typed: typed.slice(0, 100), error: typed.trim() ? NOT_A_CODE : 'Enter a certificate code.' })
}

export default function VerifyForm() {
  const { typed, error } = useLoaderData<typeof loader>()
  return (
    <main className="mx-auto max-w-xl px-4 py-10 sm:px-6">
      <h1 className="text-3xl font-bold">Check a certificate</h1>
      <p className="mt-3 text-slate-700">
        Type the code printed on a {PRODUCT_NAME} certificate to see whether it is valid and what it states.
      </p>
      <Form method="get" className="card mt-6 space-y-3 p-6" noValidate>
        <label htmlFor="code" className="field-label">
          Certificate code
        </label>
        <input
          id="code"
          name="code"
          defaultValue={typed}
          autoComplete="off"
          spellCheck={false}
          autoCapitalize="characters"
          className="field-input font-mono"
          aria-invalid={error ? true : undefined}
          aria-describedby={error ? 'code-error' : undefined}
        />
        {error ? (
          <p id="code-error" className="field-error">
            {error}
          </p>
        ) : null}
        <button type="submit" className="btn-primary">
          Check
        </button>
      </Form>
    </main>
  )
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />
}
