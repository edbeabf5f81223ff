import type { LoaderFunctionArgs, MetaFunction } from '@remix-run/node'
import { useLoaderData } from '@remix-run/react'
import { SsoProblemCard } from '#app/components/account/sso-problem.tsx'
import { GeneralErrorBoundary } from '#app/components/error-boundary.tsx'
import { PRODUCT_NAME } from '#app/utils/brand.ts'
import { pageLoader } from '#app/utils/pages.server.ts'
import { ssoLoader, type SsoProblem } from './__sso.server.ts'

// /sso/<provider>/callback: where the provider sends the person back; signed in, they go where they were going,
// else this page says why not.

export const meta: MetaFunction = () => [{ title: `Sign in · ${PRODUCT_NAME}` }]

export const loader = (args: LoaderFunctionArgs) =>
  pageLoader(args, ({ request, params }) => ssoLoader(request, params.provider ?? ''))

export default function SignInThroughProvider() {
  const problem = useLoaderData<SsoProblem>()
  return <SsoProblemCard {...problem} />
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />
}
