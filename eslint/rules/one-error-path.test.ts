import path from 'node:path'
import { ESLint, RuleTester } from 'eslint'
import tseslint from 'typescript-eslint'
import { describe, expect, it } from 'vitest'
import { oneErrorPathConfig, rule, serviceErrorClasses } from './one-error-path.js'

// The one-error-path rule on snippets that answer a refusal each way a module used to, and on the
// app as it is: no module but the wrappers turns a refusal into an answer.

const ROOT = path.resolve(import.meta.dirname, '../..')
const at = (file: string) => path.join(ROOT, file)
const ROUTE = at('app/routes/x.tsx')
const RESOURCE = at('app/routes/api+/x.ts')
const UTIL = at('app/utils/x.server.ts')
const SERVICE = at('app/modules/x/service.server.ts')

RuleTester.describe = describe
RuleTester.it = it
const tester = new RuleTester({
  languageOptions: { parser: tseslint.parser, parserOptions: { ecmaFeatures: { jsx: true } } },
})

describe('one-error-path', () => {
  it('knows the ServiceError classes, the subclasses too', () => {
    expect([...serviceErrorClasses()]).toEqual(
      expect.arrayContaining(['ServiceError', 'VideoLocked', 'UploadRefused', 'UnusableLink']),
    )
  })

  tester.run('one-error-path', rule, {
    valid: [
      // routes as they are written: wrapped, throwing, catching only what is no refusal
      {
        filename: ROUTE,
        code: `export const loader = (args) => pageLoader(args, loadPage)
          export const action = (args) => pageAction(args, runAction, { redirects: [{ when: VideoLocked, to: () => '/' }] })
          async function loadPage() { throw notFound('Course not found.') }
          try { await x() } catch (error) { if (!(error instanceof ZodError)) throw error }
          export default function Page() { return <p>page</p> }`,
      },
      {
        filename: RESOURCE,
        code: `export const loader = apiLoader(async () => ({ ok: true }))
          export const action = () => methodNotAllowed(['GET'])`,
      },
      {
        filename: RESOURCE,
        code: `export const action = apiAction('POST', async () => json({ saved: true }, { status: 201 }))`,
      },
      // a status that is not written by hand is the wrappers' business
      { filename: UTIL, code: `export const answer = (status) => json({ message: 'x' }, { status })` },
      // a service may look at a refusal to throw another one
      {
        filename: SERVICE,
        code: `try { await read() } catch (error) {
          if (isServiceError(error) && !error.errors) throw new ServiceError(error.status, error.message, { file: error.message })
          throw error
        }`,
      },
      {
        filename: SERVICE,
        code: `await job.catch((error) => lease.finish({ message: isServiceError(error) ? error.message : 'broke' }))`,
      },
      // the wrappers are where refusals become answers
      {
        filename: at('app/utils/api.server.ts'),
        code: `try { return await handler(args) } catch (error) {
          const refusal = asServiceError(error)
          return json({ message: refusal.message }, { status: refusal.status })
        }
        json({ message: 'Something went wrong on our side; please try again.' }, { status: 500 })`,
      },
      { filename: at('app/utils/refusals.server.ts'), code: `export const e = (x) => isServiceError(x)` },
    ],
    invalid: [
      // a catch in a route that picks the answer from the refusal's status
      {
        filename: ROUTE,
        code: `try { await run() } catch (error) {
          if (isServiceError(error) && error.status === 403) throw redirect('/courses')
          throw error
        }`,
        errors: [
          { messageId: 'internal', data: { name: 'isServiceError' }, line: 2 },
          { messageId: 'readsCaught', data: { property: 'status' }, line: 2 },
        ],
      },
      {
        filename: ROUTE,
        code: `try { await run() } catch (e) { if (e instanceof VideoLocked) return back() }`,
        errors: [{ messageId: 'instanceOf', data: { name: 'VideoLocked' } }],
      },
      {
        filename: ROUTE,
        code: `run().catch((refused) => json({ errors: refused.errors }, { status: 400 }))`,
        errors: [
          { messageId: 'handMade', data: { status: '400' } },
          { messageId: 'readsCaught', data: { property: 'errors' } },
        ],
      },
      {
        filename: ROUTE,
        code: `import { errorResponse } from '#app/utils/api.server.ts'
          try { return await load() } catch (error) { return errorResponse(error) }`,
        errors: [
          { messageId: 'internal', data: { name: 'errorResponse' }, line: 1 },
          { messageId: 'internal', data: { name: 'errorResponse' }, line: 2 },
        ],
      },
      // a page whose loader or action skips its wrapper
      {
        filename: ROUTE,
        code: `export async function loader() { return null }
          export const action = ({ request }) => save(request)
          export default function Page() { return null }`,
        errors: [
          { messageId: 'unwrappedPage', data: { name: 'loader', wrapper: 'pageLoader' }, line: 1 },
          { messageId: 'unwrappedPage', data: { name: 'action', wrapper: 'pageAction' }, line: 2 },
        ],
      },
      {
        // at the module's top level the browser's bundle would keep the server call
        filename: ROUTE,
        code: `export const loader = pageLoader(loadPage)
          export { default } from './other.tsx'`,
        errors: [{ messageId: 'unwrappedPage', data: { name: 'loader', wrapper: 'pageLoader' } }],
      },
      {
        // the root route is a page too
        filename: at('app/root.tsx'),
        code: `export async function loader({ request }) { return json({ user: await getSessionUser(request) }) }
          export default function App() { return null }`,
        errors: [{ messageId: 'unwrappedPage', data: { name: 'loader', wrapper: 'pageLoader' } }],
      },
      // a resource route, a download: a refusal it threw unwrapped would be a 500
      {
        filename: RESOURCE,
        code: `export async function loader({ params }) { return openFile(params.key) }
          export const action = notFound`,
        errors: [
          { messageId: 'unwrappedResource', data: { name: 'loader' }, line: 1 },
          { messageId: 'unwrappedResource', data: { name: 'action' }, line: 2 },
        ],
      },
      // a refusal built by hand, anywhere in the app
      {
        filename: RESOURCE,
        code: `export const loader = apiRoute(async () => json({ message: 'No such API call.' }, { status: 404 }))`,
        errors: [{ messageId: 'handMade', data: { status: '404' } }],
      },
      {
        filename: UTIL,
        code: `if (!sameSite) throw json({ message: 'Requests from other sites are refused.' }, 403)
          return new Response('Not found', { status: 404, headers: {} })
          return Response.json({ message: 'Busy' }, { 'status': 429 })
          return jsonWithError(data, 'Refused.', { status: 409 })`,
        errors: [
          { messageId: 'handMade', data: { status: '403' }, line: 1 },
          { messageId: 'handMade', data: { status: '404' }, line: 2 },
          { messageId: 'handMade', data: { status: '429' }, line: 3 },
          { messageId: 'handMade', data: { status: '409' }, line: 4 },
        ],
      },
      {
        filename: at('app/components/x.tsx'),
        code: `export const gone = () => new Response(null, { status: 503 })`,
        errors: [{ messageId: 'handMade', data: { status: '503' } }],
      },
      // a helper outside the routes that catches a refusal and answers it
      {
        filename: UTIL,
        code: `export async function resetPageAction(request, token) {
          try {
            await resetPassword(token, await readForm(request))
          } catch (error) {
            if (isServiceError(error)) return redirectWithError('/forgot-Password', TOKEN_EXPIRED)
            throw error
          }
        }`,
        errors: [{ messageId: 'answersRefusal', line: 4 }],
      },
      {
        filename: SERVICE,
        code: `await save().catch((error) => {
          if (error instanceof UploadRefused) return json({ fields: error.fields }, { status: error.status })
          throw error
        })`,
        errors: [{ messageId: 'answersRefusal', line: 1 }],
      },
    ],
  })
})

describe('the app', () => {
  it(
    'has no refusal answered outside the wrappers, and every loader and action of a route wrapped',
    { timeout: 120_000 },
    async () => {
      const eslint = new ESLint({
        cwd: ROOT,
        overrideConfigFile: true,
        overrideConfig: [
          { files: ['**/*.ts', '**/*.tsx'], languageOptions: { parser: tseslint.parser } },
          oneErrorPathConfig,
        ],
      })
      const results = await eslint.lintFiles(['app'])
      const linted = results.map((r) => path.relative(ROOT, r.filePath))
      expect(linted.filter((file) => file.startsWith('app/routes/')).length).toBeGreaterThan(90)
      expect(linted).toEqual(expect.arrayContaining(['app/utils/session.server.ts', 'app/modules/errors.ts']))
      // the other rules' disable comments are not this lint's business (their rules are not loaded here)
      const found = results.flatMap((r) =>
        r.messages
          .filter((m) => m.fatal || m.ruleId === 'portal/one-error-path')
          .map((m) => `${path.relative(ROOT, r.filePath)}:${m.line} ${m.message}`),
      )
      expect(found).toEqual([])
    },
  )
})
