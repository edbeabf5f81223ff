import { mkdir, mkdtemp, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { brotliCompressSync } from 'node:zlib'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { REFERENCE_PAGE_POLICY } from '#app/modules/api-docs/reference-page.server.ts'
import { SYSTEM } from '#app/modules/auth/roles.ts'
import { closeSandbox } from '#app/modules/labs/sandbox.server.ts'
import { importLab } from '#app/modules/labs/service.server.ts'
import * as root from '#app/root.tsx'
import * as authLayout from '#app/routes/_auth+/_layout.tsx'
import * as signInPage from '#app/routes/_auth+/sign-in.tsx'
import * as learnerLayout from '#app/routes/_learner+/_layout.tsx'
import * as labPage from '#app/routes/_learner+/course.$courseId.lab.$labId.tsx'
import * as notFoundPage from '#app/routes/_public+/$.tsx'
import * as publicLayout from '#app/routes/_public+/_layout.tsx'
import * as referenceRoute from '#app/routes/api+/docs.ts'
import * as fileRoute from '#app/routes/files.$key.ts'
import { resetEnvCache } from '#app/utils/env.server.ts'
import { assignCourse, labFolderOf, makeAdmin, makeCourse, makeLearner, makeStoredFile } from '#tests/factories.ts'
import { sessionCookieFor } from '#tests/sessions.ts'
import { serve, standInBuild } from '#tests/stand-in-build.ts'
import { PRACTICE_WORKER_POLICY } from '../../server/security-headers.js'

// The response headers of the web server (server/web-server.js) in front of the real entry, root and
// pages: the page's Content-Security-Policy with a fresh nonce on every script the page carries, the
// headers every answer gets, and HSTS only when PUBLIC_URL is https. The build is a stand-in
// (tests/stand-in-build.ts) so no `remix build` is needed.

const routes = {
  root,
  'routes/_auth+/_layout': authLayout,
  'routes/_auth+/sign-in': signInPage,
  'routes/files.$key': fileRoute,
  'routes/api+/docs': referenceRoute,
  'routes/_public+/_layout': publicLayout,
  'routes/_public+/$': notFoundPage,
  'routes/_learner+/_layout': learnerLayout,
  'routes/_learner+/course.$courseId.lab.$labId': labPage,
}

const servers: Awaited<ReturnType<typeof serve>>[] = []

/** The web server as `portal serve` runs it, created with the environment as it is now. */
async function startServer(): Promise<string> {
  const server = await serve(await standInBuild(routes))
  servers.push(server)
  return server.base
}

const saved = { PUBLIC_URL: process.env.PUBLIC_URL, VIDEO_HOSTS: process.env.VIDEO_HOSTS }
let base: string
let storedPdf: { key: string; cookie: string }
let labPath = ''
let learnerCookie = ''

beforeAll(async () => {
  // before the server installs Remix's globals (Headers without getSetCookie)
  const admin = await makeAdmin()
  const file = await makeStoredFile('document', { uploadedBy: admin.id })
  storedPdf = { key: file.key, cookie: await sessionCookieFor(admin.userName) }
  const course = await makeCourse()
  const lab = await importLab(SYSTEM, {
    folder: labFolderOf(
      'title: Headers\ndataset: data.sql\nexercises:\n  - key: one\n    title: One\n    prompt: One.\n    solution: SELECT 1 AS n\n',
      'CREATE TABLE t (n int);',
    ),
    course: course.id,
  })
  labPath = `/course/${course.id}/lab/${lab.id}`
  const learner = await makeLearner()
  await assignCourse(learner.id, course.id)
  learnerCookie = await sessionCookieFor(learner.userName)
  process.env.VIDEO_HOSTS = 'videos.example.com, 127.0.0.1:3999,bad host;script-src *'
  base = await startServer()
})

afterAll(async () => {
  for (const server of servers) await server.close()
  await closeSandbox()
  process.env.PUBLIC_URL = saved.PUBLIC_URL
  if (saved.VIDEO_HOSTS === undefined) delete process.env.VIDEO_HOSTS
  else process.env.VIDEO_HOSTS = saved.VIDEO_HOSTS
  resetEnvCache()
})

/** The policy's directives by name: `{ 'script-src': ["'self'", "'nonce-…'"], … }`. */
function directives(policy: string | null): Record<string, string[]> {
  expect(policy, 'a Content-Security-Policy header').toBeTruthy()
  return Object.fromEntries(
    policy!
      .split(';')
      .map((part) => part.trim().split(/\s+/))
      .filter(([name]) => name)
      .map(([name, ...values]) => [name, values]),
  )
}

/** Every <script> start tag of a page. */
const scriptTags = (html: string) => html.match(/<script\b[^>]*>/g) ?? []

const nonceOf = (policy: Record<string, string[]>) => {
  const sources = policy['script-src'].filter((source) => source.startsWith("'nonce-"))
  expect(sources).toHaveLength(1)
  return sources[0].slice("'nonce-".length, -1)
}

describe('a page', () => {
  it('carries a policy whose nonce is on every script of the page, a new one each time', async () => {
    const first = await fetch(`${base}/sign-in`)
    expect(first.status).toBe(200)
    const html = await first.text()
    const policy = directives(first.headers.get('Content-Security-Policy'))
    expect(policy['default-src']).toEqual(["'self'"])
    expect(policy['script-src']).toContain("'self'")
    expect(policy['script-src']).not.toContain("'unsafe-inline'")
    expect(policy['script-src']).not.toContain("'unsafe-eval'")
    expect(policy['object-src']).toEqual(["'none'"])
    expect(policy['base-uri']).toEqual(["'none'"])
    expect(policy['frame-ancestors']).toEqual(["'none'"])
    expect(policy['form-action']).toEqual(["'self'"])

    const nonce = nonceOf(policy)
    expect(nonce).toMatch(/^[A-Za-z0-9+/]{22}==$/)
    // Remix's own inline scripts (the context, the module loader, scroll restoration), all with the nonce
    const tags = scriptTags(html)
    expect(tags.length).toBeGreaterThanOrEqual(3)
    for (const tag of tags) expect(tag).toContain(` nonce="${nonce}"`)

    const second = await fetch(`${base}/sign-in`)
    const again = nonceOf(directives(second.headers.get('Content-Security-Policy')))
    expect(again).not.toBe(nonce)
    for (const tag of scriptTags(await second.text())) expect(tag).toContain(` nonce="${again}"`)
  })

  it('lets frames and media come from this site and the video hosts only, VIDEO_HOSTS included', async () => {
    const response = await fetch(`${base}/sign-in`)
    const policy = directives(response.headers.get('Content-Security-Policy'))
    expect(policy['frame-src']).toEqual([
      "'self'",
      'https://www.youtube-nocookie.com',
      'https://player.vimeo.com',
      'https://videos.example.com',
      'https://127.0.0.1:3999',
      // a stand-in on this machine may speak plain http, as embeds allow
      'http://127.0.0.1:3999',
    ])
    expect(policy['media-src']).toEqual([
      "'self'",
      'https://videos.example.com',
      'https://127.0.0.1:3999',
      'http://127.0.0.1:3999',
    ])
    // a VIDEO_HOSTS entry that is no host[:port] never reaches the policy
    expect(response.headers.get('Content-Security-Policy')).not.toContain('bad')
    expect(policy['script-src']).not.toContain('*')
  })

  it('carries the framing, referrer, sniffing and feature headers, and no HSTS over http', async () => {
    for (const path of ['/sign-in', '/no-such-page']) {
      const response = await fetch(`${base}${path}`)
      expect(response.headers.get('X-Frame-Options'), path).toBe('DENY')
      expect(response.headers.get('Referrer-Policy'), path).toBe('strict-origin-when-cross-origin')
      expect(response.headers.get('X-Content-Type-Options'), path).toBe('nosniff')
      const features = response.headers.get('Permissions-Policy') ?? ''
      for (const feature of ['camera', 'microphone', 'geolocation', 'payment', 'usb'])
        expect(features, path).toContain(`${feature}=()`)
      // the players' frames are granted these by their allow attribute; the page must not forbid them
      for (const feature of ['autoplay', 'fullscreen', 'encrypted-media', 'picture-in-picture'])
        expect(features, path).not.toContain(feature)
      expect(response.headers.get('Strict-Transport-Security'), path).toBeNull()
    }
    // the error page (404) has the nonce on its scripts too
    const missing = await fetch(`${base}/no-such-page`)
    expect(missing.status).toBe(404)
    const nonce = nonceOf(directives(missing.headers.get('Content-Security-Policy')))
    for (const tag of scriptTags(await missing.text())) expect(tag).toContain(` nonce="${nonce}"`)
  })
})

describe('a lab page', () => {
  it('may start workers of this site and compile WebAssembly, which no other page may', async () => {
    const lab = await fetch(`${base}${labPath}`, { headers: { Cookie: learnerCookie } })
    expect(lab.status).toBe(200)
    const policy = directives(lab.headers.get('Content-Security-Policy'))
    expect(policy['script-src']).toEqual(["'self'", `'nonce-${nonceOf(policy)}'`, "'wasm-unsafe-eval'"])
    expect(policy['worker-src']).toEqual(["'self'"])
    const other = directives((await fetch(`${base}/sign-in`)).headers.get('Content-Security-Policy'))
    expect(other['script-src']).not.toContain("'wasm-unsafe-eval'")
    expect(other['worker-src']).toBeUndefined()
  })

  it('starts a practice worker whose own policy lets it compile WebAssembly and fetch from this site only', async () => {
    // a build folder of its own, holding a worker as server/build-practice.js names it and another asset
    const built = await mkdtemp(path.join(os.tmpdir(), 'portal-assets-'))
    await mkdir(path.join(built, 'practice'))
    await writeFile(path.join(built, 'practice', 'worker-ABC123.js'), 'postMessage(1)')
    // and its brotli-compressed copy, which a browser that takes brotli gets
    await writeFile(path.join(built, 'practice', 'worker-ABC123.js.br'), brotliCompressSync('postMessage(2)'))
    await writeFile(path.join(built, 'entry.client-XYZ.js'), 'export {}')
    const server = await serve({ ...(await standInBuild(routes)), assetsBuildDirectory: built })
    servers.push(server)
    const worker = await fetch(`${server.base}/build/practice/worker-ABC123.js`, {
      headers: { 'Accept-Encoding': 'gzip' },
    })
    expect(worker.status).toBe(200)
    expect(await worker.text()).toBe('postMessage(1)')
    expect(worker.headers.get('Cache-Control')).toBe('public, max-age=31536000, immutable')
    expect(worker.headers.get('Content-Security-Policy')).toBe(PRACTICE_WORKER_POLICY)
    expect(directives(PRACTICE_WORKER_POLICY)).toEqual({
      'default-src': ["'none'"],
      'script-src': ["'self'", "'wasm-unsafe-eval'"],
      'connect-src': ["'self'"],
    })
    const brotli = await fetch(`${server.base}/build/practice/worker-ABC123.js`, {
      headers: { 'Accept-Encoding': 'gzip, deflate, br' },
    })
    expect(brotli.headers.get('Content-Encoding')).toBe('br')
    expect(brotli.headers.get('Content-Type')).toBe('text/javascript; charset=utf-8')
    expect(brotli.headers.get('Cache-Control')).toBe('public, max-age=31536000, immutable')
    expect(brotli.headers.get('Content-Security-Policy')).toBe(PRACTICE_WORKER_POLICY)
    expect(await brotli.text()).toBe('postMessage(2)')
    const other = await fetch(`${server.base}/build/entry.client-XYZ.js`)
    expect(other.headers.get('Content-Security-Policy')).toBe("default-src 'none'; frame-ancestors 'none'")
  })
})

describe('answers that are not pages', () => {
  it('carry a policy that allows nothing, unless they set their own', async () => {
    const missingFile = await fetch(`${base}/files/nothing-here`)
    expect(missingFile.status).toBe(404)
    expect(directives(missingFile.headers.get('Content-Security-Policy'))).toEqual({
      'default-src': ["'none'"],
      'frame-ancestors': ["'none'"],
    })
    expect(missingFile.headers.get('X-Frame-Options')).toBe('DENY')
    expect(missingFile.headers.get('X-Content-Type-Options')).toBe('nosniff')
    expect(missingFile.headers.get('Referrer-Policy')).toBe('strict-origin-when-cross-origin')

    // the API reference keeps its own policy (Swagger UI), with the other headers beside it
    const reference = await fetch(`${base}/api/docs`)
    expect(reference.headers.get('Content-Security-Policy')).toBe(REFERENCE_PAGE_POLICY)
    expect(reference.headers.get('X-Frame-Options')).toBe('DENY')
  })

  it('let the app frame a stored PDF in its own viewers, and no other site', async () => {
    const response = await fetch(`${base}/files/${storedPdf.key}`, { headers: { Cookie: storedPdf.cookie } })
    expect(response.status).toBe(200)
    expect(response.headers.get('Content-Type')).toBe('application/pdf')
    expect(response.headers.get('X-Frame-Options')).toBe('SAMEORIGIN')
    const policy = directives(response.headers.get('Content-Security-Policy'))
    expect(policy['frame-ancestors']).toEqual(["'self'"])
    expect(policy['default-src']).toEqual(["'none'"])
  })
})

describe('HSTS', () => {
  it('is sent on every answer when PUBLIC_URL is https, and only then', async () => {
    process.env.PUBLIC_URL = 'https://learn.example.com'
    const secure = await startServer()
    for (const path of ['/sign-in', '/files/nothing-here', '/api/docs']) {
      const response = await fetch(`${secure}${path}`)
      expect(response.headers.get('Strict-Transport-Security'), path).toBe('max-age=31536000; includeSubDomains')
    }
    process.env.PUBLIC_URL = 'http://learn.example.com'
    const plain = await startServer()
    expect((await fetch(`${plain}/sign-in`)).headers.get('Strict-Transport-Security')).toBeNull()
  })
})
