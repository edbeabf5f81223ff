import { json, type ActionFunctionArgs, type LoaderFunctionArgs } from '@remix-run/node'
import { type ServiceError } from '#app/modules/errors.ts'
import { asServiceError, refusalHeaders } from './refusals.server.ts'
import { redirectWithError } from './toast.server.ts'

// Pages: a service's refusal (a ServiceError, or a schema's ZodError) becomes a response here, in
// pageLoader and pageAction, and in the form helpers of forms.server.ts; routes only throw. A refusal
// is the page's error boundary with the refusal's own status (403, 404, 409 …) and message, or a
// redirect with the message as a toast where the page says so; anything else is a 500.

/** A class of ServiceError (VideoLocked, UnusableLink …), to answer its refusals apart from the rest. */
export type ErrorClass = abstract new (...args: never[]) => ServiceError

/**
 * Where a refusal sends the visitor instead of the error page, with its message as a toast: the
 * first whose `when` (a status, or a class of ServiceError) matches; without `when`, any refusal.
 */
export type RefusalRedirect<A> = { when?: number | ErrorClass; to: (args: A) => string }

export type PageOptions<A> = {
  redirects?: RefusalRedirect<A>[]
  /** a download link opened by the browser: a refusal is its message as plain text, not a page */
  plainText?: boolean
}

type PageArgs = LoaderFunctionArgs | ActionFunctionArgs

/**
 * A page's loader, as `export const loader = (args: LoaderFunctionArgs) => pageLoader(args, async (…) => …)`:
 * the wrapper is applied inside the exported function so the compiler can still drop the loader and
 * its server imports from the browser's bundle.
 */
export function pageLoader<A extends LoaderFunctionArgs, T>(
  args: A,
  load: (args: A) => T | Promise<T>,
  options: PageOptions<A> = {},
): Promise<T> {
  return runPage(args, load, options)
}

/** Loaders and actions alike: the handler's refusal thrown as the page's answer. */
export async function runPage<A extends PageArgs, T>(
  args: A,
  handler: (args: A) => T | Promise<T>,
  options: PageOptions<A>,
): Promise<T> {
  try {
    return await handler(args)
  } catch (thrown) {
    throw await pageRefusal(thrown, args, options)
  }
}

async function pageRefusal<A>(thrown: unknown, args: A, { redirects = [], plainText }: PageOptions<A>) {
  const error = asServiceError(thrown)
  if (!error) return thrown
  const redirect = redirects.find(({ when }) => matches(when, error))
  if (redirect) return redirectWithError(redirect.to(args), error.message)
  // a refusal depends on who asked: never kept by a cache
  const headers = { 'Cache-Control': 'no-store', ...refusalHeaders(error) }
  if (plainText)
    return new Response(`${error.message}\n`, {
      status: error.status,
      headers: { ...headers, 'Content-Type': 'text/plain; charset=utf-8' },
    })
  return json({ message: error.message }, { status: error.status, headers })
}

function matches(when: RefusalRedirect<unknown>['when'], error: ServiceError) {
  if (when === undefined) return true
  return typeof when === 'number' ? error.status === when : error instanceof when
}
