import { createCookieSessionStorage, redirect, type SessionStorage } from '@remix-run/node'
import { Authenticator } from 'remix-auth'
import { FormStrategy } from 'remix-auth-form'
import { can, PERMISSIONS, type Permission } from '#app/modules/auth/permissions.ts'
import { LoginSchema } from '#app/modules/auth/schema.ts'
import { endSession, login, userFromToken, type SessionUser } from '#app/modules/auth/service.server.ts'
import { TOKEN_LIFETIME_SECONDS } from '#app/modules/auth/token.server.ts'
import { forbidden } from '#app/modules/errors.ts'
import { clientAddress } from './client-address.server.ts'
import { getEnv, getSecrets } from './env.server.ts'
import { safeRedirect } from './redirect.ts'
import { noteActingUser } from './request-record.server.ts'
import { redirectWithError } from './toast.server.ts'

// The page session: an httpOnly, SameSite=Lax cookie holding the same JWT the /api accepts.

let storage: SessionStorage | undefined

function sessionStorage(): SessionStorage {
  storage ??= createCookieSessionStorage({
    cookie: {
      name: '__portal_session',
      httpOnly: true,
      sameSite: 'lax',
      path: '/',
      secure: getEnv().NODE_ENV === 'production' && getEnv().PUBLIC_URL.startsWith('https:'),
      secrets: [getSecrets().sessionSecret],
      maxAge: TOKEN_LIFETIME_SECONDS,
    },
  })
  return storage
}

type LoginResult = Awaited<ReturnType<typeof login>>

let auth: Authenticator<LoginResult> | undefined

/** remix-auth with the form strategy; the form is validated by the same schema as the /api. */
export function authenticator() {
  auth ??= new Authenticator<LoginResult>().use(
    new FormStrategy(async ({ form, request }) =>
      login(LoginSchema.parse(Object.fromEntries(form)), { address: clientAddress(request) }),
    ),
    'form',
  )
  return auth
}

/** The token of the request's page session, if it has one. */
export async function sessionToken(request: Request) {
  const session = await sessionStorage().getSession(request.headers.get('Cookie'))
  const token: unknown = session.get('token')
  return typeof token === 'string' ? token : undefined
}

// A page's loaders (root, layout, page) all ask who is signed in for the same request: look once.
const usersOfRequests = new WeakMap<Request, Promise<SessionUser | undefined>>()

export function getSessionUser(request: Request): Promise<SessionUser | undefined> {
  let user = usersOfRequests.get(request)
  if (!user) {
    user = sessionToken(request)
      .then(userFromToken)
      .then((found) => {
        if (found) noteActingUser(found.id)
        return found
      })
    usersOfRequests.set(request, user)
  }
  return user
}

function signInUrl(request: Request, redirectTo?: string) {
  const url = new URL(request.url)
  const origin = redirectTo ?? `${url.pathname}${url.search}`
  return `/sign-in?${new URLSearchParams({ redirectTo: origin })}`
}

/**
 * A write that carries the session cookie must come from this site's own pages (CSRF): browsers say
 * where a request comes from in Sec-Fetch-Site, or at least in Origin. Reads, and clients that send
 * neither (the CLI, curl with a Bearer token), pass.
 */
export function isSameSiteRequest(request: Request): boolean {
  if (request.method === 'GET' || request.method === 'HEAD') return true
  const site = request.headers.get('Sec-Fetch-Site')
  if (site) return site === 'same-origin' || site === 'none'
  const origin = request.headers.get('Origin')
  if (!origin) return true
  return origin === new URL(request.url).origin || origin === new URL(getEnv().PUBLIC_URL).origin
}

/** The signed-in user, or a redirect to /sign-in that remembers where they were going. */
export async function requireUser(request: Request, options: { redirectTo?: string } = {}): Promise<SessionUser> {
  if (!isSameSiteRequest(request)) throw forbidden('Requests from other sites are refused.')
  const user = await getSessionUser(request)
  if (user) return user
  const headers = new Headers()
  // an expired or revoked token: clear it so the browser stops sending it
  if (await sessionToken(request)) headers.set('Set-Cookie', await destroySessionCookie(request))
  throw redirect(signInUrl(request, options.redirectTo), { headers })
}

/** The /admin guard: whoever the permission table lets into the admin area; anyone else goes to /courses. */
export async function requireAdminSide(request: Request): Promise<SessionUser> {
  const user = await requireUser(request)
  if (!can(user, 'enter:admin-area')) throw await redirectWithError('/courses', PERMISSIONS['enter:admin-area'].denied)
  return user
}

/**
 * An /admin page (or its action) that needs a permission besides the admin area: a user without it
 * is sent back to `back` with a toast in the words of the /api's refusal.
 */
export async function requirePagePermission(request: Request, permission: Permission, back: string) {
  const user = await requireAdminSide(request)
  if (!can(user, permission)) throw await redirectWithError(back, PERMISSIONS[permission].denied)
  return user
}

/** Pages that change content. */
export function requireContentManager(request: Request, back = '/admin/courses'): Promise<SessionUser> {
  return requirePagePermission(request, 'update:content', safeRedirect(back, '/admin/courses'))
}

/** Pages that create people and assign their courses. */
export function requirePeopleManager(request: Request, back: string): Promise<SessionUser> {
  return requirePagePermission(request, 'manage:people', safeRedirect(back, '/admin/users'))
}

export async function commitToken(request: Request, token: string) {
  const session = await sessionStorage().getSession(request.headers.get('Cookie'))
  session.set('token', token)
  return sessionStorage().commitSession(session)
}

/** Logout: the session ends on the server (a kept copy of the cookie opens nothing) and the cookie goes. */
export async function endPageSession(request: Request) {
  await endSession(await sessionToken(request))
  return destroySessionCookie(request)
}

export async function destroySessionCookie(request: Request) {
  const session = await sessionStorage().getSession(request.headers.get('Cookie'))
  return sessionStorage().destroySession(session)
}
