import { action as signInAction } from '#app/routes/_auth+/sign-in.tsx'
import { getToast } from '#app/utils/toast.server.ts'
import { makePeople, type makeUser, PASSWORD } from './factories.ts'
import { call } from './requests.ts'

// What a browser keeps between requests: the session cookie and the one-shot toast.

/** Sign in through the real sign-in action; the session cookie for the next requests. */
export async function sessionCookieFor(login: string, password = PASSWORD): Promise<string> {
  const response = await call(signInAction, '/sign-in', {
    method: 'POST',
    body: new URLSearchParams({ email: login, password, redirectTo: '' }),
  })
  const cookie = response.headers
    .getSetCookie()
    .find((c) => c.startsWith('__portal_session='))
    ?.split(';')[0]
  if (!cookie) throw new Error(`could not sign in as ${login} (${response.status})`)
  return cookie
}

/** The toast a response leaves for the next page, read the way the root loader reads it. */
export async function toastOf(response: Response) {
  const cookie = response.headers
    .getSetCookie()
    .find((c) => c.startsWith('toast-session='))
    ?.split(';')[0]
  if (!cookie) return undefined
  return (await getToast(new Request('http://portal.test/', { headers: { Cookie: cookie } }))).toast
}

/** A new account of a role, signed in: what the factory made, with its session cookie. */
export type SignedInPerson = Awaited<ReturnType<typeof makeUser>> & { cookie: string }

/** One new account of each role named, each signed in through the sign-in action. */
export async function signedInPeople<R extends Parameters<typeof makePeople>[number]>(
  ...roles: R[]
): Promise<Record<R, SignedInPerson>> {
  const people = (await makePeople(...roles)) as Record<R, SignedInPerson>
  for (const role of roles) people[role].cookie = await sessionCookieFor(people[role].userName)
  return people
}
