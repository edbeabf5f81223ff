// @ts-check
import { readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

// One error path (docs/decisions/030-one-error-path.md, 033): a service's refusal (a ServiceError, or
// a schema's ZodError) becomes an HTTP answer only in the wrappers — apiRoute for /api and downloads
// (api.server.ts), pageLoader for page loaders (pages.server.ts), pageAction and the form helpers for
// page actions (forms.server.ts) — with what they share about a refusal in refusals.server.ts. Every
// other module of the app only throws. This rule reports, as the code is typed:
//
// - in any module of the app but those four: an answer with a 4xx or 5xx status written by hand
//   (`json(…, { status: 404 })`, `new Response(…, { status: 403 })`), and a catch (`catch (e)` or
//   `.catch((e) => …)`) that looks at a refusal (its `.status` or `.errors`, `isServiceError`,
//   `asServiceError`, `instanceof` a ServiceError class) and builds an answer (json, a redirect, a Response);
// - in a route module (app/routes, and app/root.tsx): any use of the wrappers' internals, any `instanceof` a ServiceError
//   class, any read of a caught error's `.status` or `.errors`, and a `loader` or `action` that does not
//   go through its wrapper — a page's as `(args) => pageLoader(args, …)` / `(args) => pageAction(args, …)`
//   (applied inside the exported function, so the compiler can drop the loader from the browser's bundle),
//   a resource route's through apiRoute, apiLoader or apiAction (or a page wrapper, or methodNotAllowed).

const ROOT = path.resolve(fileURLToPath(new URL('../..', import.meta.url)))

/** Where a refusal becomes an answer: the only modules that may build one. */
export const WRAPPERS = [
  'app/utils/api.server.ts',
  'app/utils/pages.server.ts',
  'app/utils/forms.server.ts',
  'app/utils/refusals.server.ts',
]

/** The wrappers' own helpers that turn a refusal into an answer; a route never calls them. */
const INTERNALS = new Set([
  'isServiceError',
  'asServiceError',
  'errorResponse',
  'runPage',
  'refusalHeaders',
  'invalidInput',
])
/** Calls that look at a refusal, outside the routes too. */
const REFUSAL_TESTS = new Set(['isServiceError', 'asServiceError'])
const PAGE_WRAPPERS = /** @type {Record<string, string>} */ ({ loader: 'pageLoader', action: 'pageAction' })
/** What a resource route's loader or action is (`export const loader = apiRoute(…)`) … */
const RESOURCE_WRAPPERS = new Set(['apiRoute', 'apiLoader', 'apiAction'])
/** … or calls at once (`export const loader = () => methodNotAllowed(['POST'])`). */
const RESOURCE_CALLS = new Set([...RESOURCE_WRAPPERS, 'pageLoader', 'pageAction', 'methodNotAllowed'])
/** Calls that build an answer: Remix's, and the toast helpers (redirectWithError, jsonWithSuccess …). */
const ANSWER = /^(json|redirect|redirectDocument|replace|data|defer)$|^(json|redirect)With[A-Z]/

/** @type {Set<string> | undefined} */
let errorClasses

/**
 * ServiceError and every class that extends it, however deep, declared in app/modules (where services
 * throw them). Read once per ESLint process: an editor sees a new class once its ESLint server restarts.
 */
export function serviceErrorClasses() {
  if (errorClasses) return errorClasses
  const classes = new Set(['ServiceError'])
  /** @param {string} dir @returns {string[]} */
  const files = (dir) =>
    readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
      const full = path.join(dir, entry.name)
      if (entry.isDirectory()) return files(full)
      return /\.tsx?$/.test(entry.name) && !/\.test\.tsx?$/.test(entry.name) ? [full] : []
    })
  const extensions = files(path.join(ROOT, 'app/modules')).flatMap((file) =>
    [...readFileSync(file, 'utf8').matchAll(/class (\w+) extends (\w+)/g)].map(([, name, base]) => ({ name, base })),
  )
  for (let grew = true; grew;) {
    grew = false
    for (const { name, base } of extensions)
      if (classes.has(base) && !classes.has(name)) {
        classes.add(name)
        grew = true
      }
  }
  errorClasses = classes
  return classes
}

/**
 * @typedef {import('estree').Node} Node
 * @typedef {import('estree').Expression | import('estree').SpreadElement | import('estree').Super} Argument
 * @typedef {{ param: string | undefined, node: Node, looks: Node[], answers: boolean }} Catch
 */

/** @param {Argument | undefined} init @returns {number | undefined} a status written as a number */
function literalStatus(init) {
  if (!init) return undefined
  if (init.type === 'Literal' && typeof init.value === 'number') return init.value
  if (init.type !== 'ObjectExpression') return undefined
  for (const property of init.properties) {
    if (property.type !== 'Property' || property.computed) continue
    const key =
      property.key.type === 'Identifier' ? property.key.name : property.key.type === 'Literal' && property.key.value
    if (key === 'status' && property.value.type === 'Literal' && typeof property.value.value === 'number')
      return property.value.value
  }
  return undefined
}

/** @param {Node} node the name a call or `new` calls, `Response.json` as `Response.json` */
function calleeName(node) {
  if (node.type !== 'CallExpression' && node.type !== 'NewExpression') return undefined
  const callee = node.callee
  if (callee.type === 'Identifier') return callee.name
  if (callee.type === 'MemberExpression' && !callee.computed && callee.object.type === 'Identifier')
    return `${callee.object.name}.${callee.property.type === 'Identifier' ? callee.property.name : ''}`
  return undefined
}

/** @param {Node} node a `(args) => wrapper(…)` arrow: the name of the wrapper it calls */
function arrowCalls(node) {
  if (node.type !== 'ArrowFunctionExpression' || node.body.type !== 'CallExpression') return undefined
  return node.body.callee.type === 'Identifier' ? node.body.callee.name : undefined
}

/** @type {import('eslint').Rule.RuleModule} */
export const rule = {
  meta: {
    type: 'problem',
    docs: { description: 'A refusal becomes an answer in the wrappers only (apiRoute, pageLoader, pageAction).' },
    schema: [],
    messages: {
      handMade:
        'A {{status}} answer built by hand: throw a ServiceError (invalid, forbidden, notFound, conflict …) and let apiRoute, pageLoader or pageAction answer it.',
      answersRefusal:
        'This catch turns a refusal into an answer: let the refusal go, and let apiRoute, pageLoader, pageAction or the form helpers answer it.',
      internal:
        '{{name}} belongs to the wrappers: a route throws, and pageLoader, pageAction (`redirects`), submitToService, replyOnRefusal or apiRoute answer.',
      instanceOf:
        'A route does not test `instanceof {{name}}`: it throws, and its wrapper answers (`redirects` of pageLoader/pageAction can name a class).',
      readsCaught:
        "Reads the caught error's .{{property}} to choose an answer: let it go to the wrapper (`redirects`, submitToService, replyOnRefusal, apiRoute).",
      unwrappedPage:
        'A page exports {{name}} without {{wrapper}}: `export const {{name}} = (args) => {{wrapper}}(args, …)`, or a refusal is a 500.',
      unwrappedResource:
        'Exports {{name}} without apiRoute (or apiLoader, apiAction, a page wrapper): a refusal it throws would be a 500.',
    },
  },

  create(context) {
    const file = path.relative(ROOT, context.filename).split(path.sep).join('/')
    if (WRAPPERS.includes(file)) return {}
    // the root route is a route module too
    const inRoutes = file.startsWith('app/routes/') || file === 'app/root.tsx'
    const classes = serviceErrorClasses()
    /** @type {Catch[]} */
    const catches = []
    const reported = new Set()

    /** @param {Node} node @param {string} messageId @param {Record<string, string>} [data] */
    const report = (node, messageId, data) => {
      const key = `${messageId}:${node.range?.[0]}`
      if (reported.has(key)) return
      reported.add(key)
      context.report({ node, messageId, data })
    }

    /** The innermost catch whose caught error is `name`. @param {string} name */
    const caught = (name) => catches.findLast((c) => c.param === name)

    /** @param {Node} node */
    const looked = (node) => catches.at(-1)?.looks.push(node)

    /** @param {Node} node @param {string | undefined} param */
    const enter = (node, param) => catches.push({ param, node, looks: [], answers: false })
    const leave = () => {
      const done = catches.pop()
      // a route's looks are reported one by one, where they are; elsewhere only a look that leads to an answer
      if (done && !inRoutes && done.looks.length > 0 && done.answers) report(done.node, 'answersRefusal')
      // an answer built in an inner catch is built in the outer one too
      if (done?.answers && catches.length > 0) catches[catches.length - 1].answers = true
    }

    /** @param {Node & { parent?: Node }} node a function: is it the handler of a `.catch(…)`? */
    const isCatchHandler = (node) => {
      const call = node.parent
      return (
        call?.type === 'CallExpression' &&
        call.arguments[0] === node &&
        call.callee.type === 'MemberExpression' &&
        !call.callee.computed &&
        call.callee.property.type === 'Identifier' &&
        call.callee.property.name === 'catch'
      )
    }
    /** @param {import('estree').Function} fn */
    const firstParam = (fn) => (fn.params[0]?.type === 'Identifier' ? fn.params[0].name : undefined)

    /** @param {import('estree').CallExpression | import('estree').NewExpression} node */
    const checkAnswer = (node) => {
      const name = calleeName(node)
      if (!name) return
      if (catches.length > 0 && (ANSWER.test(name) || name === 'Response' || name.startsWith('Response.')))
        catches[catches.length - 1].answers = true
      const builds =
        /^json(With[A-Z]\w*)?$/.test(name) ||
        (node.type === 'NewExpression' && name === 'Response') ||
        name === 'Response.json'
      if (!builds) return
      for (const init of node.arguments.slice(1)) {
        const status = literalStatus(init)
        if (status !== undefined && status >= 400 && status < 600) report(node, 'handMade', { status: String(status) })
      }
    }

    /** @type {import('eslint').Rule.RuleListener} */
    const listener = {
      CatchClause(node) {
        enter(node, node.param?.type === 'Identifier' ? node.param.name : undefined)
      },
      'CatchClause:exit': leave,
      ':function'(/** @type {import('estree').Function & { parent?: Node }} */ node) {
        if (isCatchHandler(node)) enter(node, firstParam(node))
      },
      ':function:exit'(/** @type {import('estree').Function & { parent?: Node }} */ node) {
        if (isCatchHandler(node)) leave()
      },
      CallExpression(node) {
        checkAnswer(node)
        const name = calleeName(node)
        if (name && REFUSAL_TESTS.has(name)) looked(node)
      },
      NewExpression: checkAnswer,
      MemberExpression(node) {
        if (node.computed || node.object.type !== 'Identifier' || node.property.type !== 'Identifier') return
        const property = node.property.name
        if (property !== 'status' && property !== 'errors') return
        const around = caught(node.object.name)
        if (!around) return
        around.looks.push(node)
        if (inRoutes) report(node, 'readsCaught', { property })
      },
      BinaryExpression(node) {
        if (node.operator !== 'instanceof' || node.right.type !== 'Identifier' || !classes.has(node.right.name)) return
        looked(node)
        if (inRoutes) report(node, 'instanceOf', { name: node.right.name })
      },
    }
    if (!inRoutes) return listener

    return {
      ...listener,
      Identifier(node) {
        if (INTERNALS.has(node.name)) report(node, 'internal', { name: node.name })
      },
      Program(program) {
        const isPage = program.body.some(
          (statement) =>
            statement.type === 'ExportDefaultDeclaration' ||
            (statement.type === 'ExportNamedDeclaration' &&
              statement.specifiers.some((s) => s.exported.type === 'Identifier' && s.exported.name === 'default')),
        )
        for (const statement of program.body) {
          if (statement.type !== 'ExportNamedDeclaration' || statement.source || !statement.declaration) continue
          const declaration = statement.declaration
          /** @type {[string, Node, Node | null | undefined][]} name, where, what it is */
          const exported = []
          if (declaration.type === 'FunctionDeclaration' && declaration.id)
            exported.push([declaration.id.name, declaration, null])
          if (declaration.type === 'VariableDeclaration')
            for (const d of declaration.declarations)
              if (d.id.type === 'Identifier') exported.push([d.id.name, d, d.init])
          for (const [name, where, init] of exported) {
            if (!(name in PAGE_WRAPPERS)) continue
            if (isPage) {
              const wrapper = PAGE_WRAPPERS[name]
              if (!init || arrowCalls(init) !== wrapper) report(where, 'unwrappedPage', { name, wrapper })
              continue
            }
            const wrapped =
              init &&
              ((init.type === 'CallExpression' &&
                init.callee.type === 'Identifier' &&
                RESOURCE_WRAPPERS.has(init.callee.name)) ||
                RESOURCE_CALLS.has(arrowCalls(init) ?? ''))
            if (!wrapped) report(where, 'unwrappedResource', { name })
          }
        }
      },
    }
  },
}

/** The plugin that carries the rule, as eslint.config.js loads it. */
export const plugin = { meta: { name: 'portal' }, rules: { 'one-error-path': rule } }

/**
 * Where the rule applies: every module of the app but its tests (which stand in for servers that refuse).
 * @type {import('eslint').Linter.Config}
 */
export const oneErrorPathConfig = {
  files: ['app/**/*.ts', 'app/**/*.tsx'],
  ignores: ['app/**/*.test.ts', 'app/**/*.test.tsx'],
  plugins: { portal: plugin },
  rules: { 'portal/one-error-path': 'error' },
}
