// The test provider's pages driven with fetch instead of a browser: redirects followed by hand, cookies
// kept per host (host and port: two providers on 127.0.0.1 keep apart), and each page's form filled in
// and posted as a person would. For integration tests; end-to-end tests use Chromium.

const MAX_STEPS = 20
const ANY_PASSWORD = 'any password' // the development login form takes any password

type Cookie = { name: string; value: string; path: string }

/** The cookies a browser would keep, by host; one jar is one browser. */
export class CookieJar {
  private readonly hosts = new Map<string, Map<string, Cookie>>()

  /** fetch with this jar's cookies, keeping the ones the answer sets; redirects are left to the caller */
  async fetch(url: string, init: RequestInit = {}): Promise<Response> {
    const { host, pathname } = new URL(url)
    const cookies = this.hosts.get(host) ?? new Map<string, Cookie>()
    this.hosts.set(host, cookies)
    const sent = [...cookies.values()].filter((cookie) => pathname.startsWith(cookie.path))
    const headers = new Headers(init.headers)
    if (sent.length) headers.set('cookie', sent.map(({ name, value }) => `${name}=${value}`).join('; '))
    const response = await fetch(url, { ...init, headers, redirect: 'manual' })
    for (const line of response.headers.getSetCookie()) {
      const [pair, ...attributes] = line.split(';').map((part) => part.trim())
      const name = pair.slice(0, pair.indexOf('='))
      const attribute = (key: string) =>
        attributes.find((a) => a.toLowerCase().startsWith(`${key}=`))?.slice(key.length + 1)
      const path = attribute('path') ?? '/'
      const expires = attribute('expires')
      const gone = attribute('max-age') === '0' || (expires !== undefined && Date.parse(expires) <= Date.now())
      if (gone) cookies.delete(`${name};${path}`)
      else cookies.set(`${name};${path}`, { name, value: pair.slice(name.length + 1), path })
    }
    return response
  }
}

const decode = (html: string) =>
  html.replace(/&(amp|quot|#39|#x27|lt|gt);/g, (_, e: string) =>
    e === 'amp' ? '&' : e === 'quot' ? '"' : e === 'lt' ? '<' : e === 'gt' ? '>' : "'",
  )
const attribute = (tag: string, name: string) => {
  const found = new RegExp(`\\s${name}="([^"]*)"`, 'i').exec(tag)
  return found ? decode(found[1]) : undefined
}

/** The page's first form: where it posts, and its inputs with their values. */
function firstForm(html: string) {
  const form = /<form\b[^>]*>([\s\S]*?)<\/form>/i.exec(html)
  if (!form) return undefined
  const fields = new URLSearchParams()
  for (const [input] of form[1].matchAll(/<input\b[^>]*>/gi)) {
    const name = attribute(input, 'name')
    if (name) fields.set(name, attribute(input, 'value') ?? '')
  }
  return { action: attribute(form[0], 'action') ?? '', fields }
}

/** Follow the provider's redirects and post its forms, `fill` filling each, until `done` takes a Location. */
async function walk(
  jar: CookieJar,
  start: string,
  done: (location: string) => boolean,
  fill: (f: URLSearchParams) => void,
) {
  let url = start
  let init: RequestInit = {}
  for (let step = 0; step < MAX_STEPS; step++) {
    const response = await jar.fetch(url, init)
    const location = response.headers.get('location')
    if (location) {
      await response.body?.cancel()
      url = new URL(location, url).href
      init = {}
      if (done(url)) return url
      continue
    }
    const html = await response.text()
    const form = firstForm(html)
    if (!form) {
      const said = html.replace(/<style[\s\S]*?<\/style>|<[^>]+>/g, ' ').replace(/\s+/g, ' ')
      throw new Error(`no form at ${url} (${response.status}): ${said.trim().slice(0, 300)}`)
    }
    fill(form.fields)
    url = new URL(form.action, url).href
    init = { method: 'POST', body: form.fields }
  }
  throw new Error(`more than ${MAX_STEPS} steps from ${start}`)
}

/**
 * Sign in at the provider from an authorization URL, as `login` (an account's sub or email): the login
 * form is filled in when the provider shows it (a jar already signed in there skips it), a consent form
 * is accepted. Resolves to the URL the provider sends the browser back to: the authorization request's
 * redirect_uri with `code` and `state`, or with `error`.
 */
export async function signInAtProvider(authorizeUrl: string, login: string, jar = new CookieJar()): Promise<string> {
  const redirectUri = new URL(authorizeUrl).searchParams.get('redirect_uri')
  if (!redirectUri) throw new Error('the authorization URL has no redirect_uri')
  return walk(
    jar,
    authorizeUrl,
    (location) => location.startsWith(redirectUri),
    (fields) => {
      if (fields.has('login')) fields.set('login', login)
      if (fields.has('password') || fields.has('login')) fields.set('password', ANY_PASSWORD)
    },
  )
}

/**
 * End the session at the provider, as its sign-out page's "Yes, sign me out" does, which sends the
 * provider's back-channel logouts. `endSessionUrl` is the provider's end_session_endpoint with its
 * parameters (client_id or id_token_hint, post_logout_redirect_uri, state). Resolves to where the provider
 * sends the browser next: the post_logout_redirect_uri, or the provider's own "signed out" page.
 */
export async function signOutAtProvider(endSessionUrl: string, jar: CookieJar): Promise<string> {
  const confirmed = (location: string) => !new URL(location).pathname.startsWith('/session/end/confirm')
  return walk(jar, endSessionUrl, confirmed, (fields) => fields.set('logout', 'yes'))
}
