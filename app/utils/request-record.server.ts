import { AsyncLocalStorage } from 'node:async_hooks'
import type { AppLoadContext } from '@remix-run/node'

// The load context the web server gives each request (app/load-context.ts) reaches loaders and actions as
// their `context`; code below them that has only the Request (who is signed in, a log line) finds it here.
// The server runs its handling of every request inside `withLoadContext` (the build's serverHooks).
const contexts = new AsyncLocalStorage<AppLoadContext>()

export function withLoadContext<T>(context: AppLoadContext, handle: () => T): T {
  return contexts.run(context, handle)
}

/** The load context of the request being handled; none outside the web server (the CLI, tests). */
export function currentLoadContext(): AppLoadContext | undefined {
  return contexts.getStore()
}

/** The acting user, for the request's line of the request log. */
export function noteActingUser(userId: string) {
  const context = contexts.getStore()
  if (context) context.record.userId = userId
}
