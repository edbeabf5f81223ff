import { readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'
import ts from 'typescript'
import { describe, expect, it } from 'vitest'

// One error path: a service's refusal (a ServiceError) becomes a response only in the wrappers of
// app/utils — apiRoute for /api and downloads, pageLoader for page loaders, pageAction and the form
// helpers for page actions. A route module only throws; this walks every module under app/routes and
// fails on one that catches a refusal itself, or a page whose loader or action skips its wrapper.

const ROOT = path.resolve(import.meta.dirname, '../..')

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name)
    if (entry.isDirectory()) return filesUnder(full)
    return /\.tsx?$/.test(entry.name) ? [full] : []
  })
}

/** ServiceError and every class that extends it, however deep, from app/modules. */
function serviceErrorClasses(): Set<string> {
  const classes = new Set(['ServiceError'])
  const extensions = filesUnder(path.join(ROOT, 'app/modules')).flatMap((file) =>
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
  return classes
}

/** Helpers that turn a refusal into a response; only the wrappers call them. */
const WRAPPER_INTERNALS = new Set(['isServiceError', 'asServiceError', 'errorResponse', 'runPage'])
const PAGE_WRAPPERS = { loader: 'pageLoader', action: 'pageAction' } as const

function violations(fileName: string, source: string, errorClasses: Set<string>): string[] {
  const file = ts.createSourceFile(fileName, source, ts.ScriptTarget.Latest, true, ts.ScriptKind.TSX)
  const found: string[] = []
  const at = (node: ts.Node, what: string) =>
    found.push(`${fileName}:${file.getLineAndCharacterOfPosition(node.getStart()).line + 1} ${what}`)

  /** Reads of a caught error's status or field errors: deciding the answer from the refusal. */
  const checkCaught = (name: string, body: ts.Node) => {
    const visit = (node: ts.Node) => {
      if (
        ts.isPropertyAccessExpression(node) &&
        ts.isIdentifier(node.expression) &&
        node.expression.text === name &&
        ['status', 'errors'].includes(node.name.text)
      )
        at(node, `reads the caught error's .${node.name.text}`)
      ts.forEachChild(node, visit)
    }
    visit(body)
  }

  const visit = (node: ts.Node) => {
    if (ts.isIdentifier(node) && WRAPPER_INTERNALS.has(node.text)) at(node, `uses ${node.text}`)
    if (
      ts.isBinaryExpression(node) &&
      node.operatorToken.kind === ts.SyntaxKind.InstanceOfKeyword &&
      ts.isIdentifier(node.right) &&
      errorClasses.has(node.right.text)
    )
      at(node, `tests instanceof ${node.right.text}`)
    if (ts.isCatchClause(node) && node.variableDeclaration && ts.isIdentifier(node.variableDeclaration.name))
      checkCaught(node.variableDeclaration.name.text, node.block)
    // promise.catch((error) => …)
    if (
      ts.isCallExpression(node) &&
      ts.isPropertyAccessExpression(node.expression) &&
      node.expression.name.text === 'catch'
    ) {
      const handler = node.arguments[0]
      const param =
        handler && (ts.isArrowFunction(handler) || ts.isFunctionExpression(handler)) && handler.parameters[0]
      if (param && ts.isIdentifier(param.name)) checkCaught(param.name.text, handler.body)
    }
    ts.forEachChild(node, visit)
  }
  visit(file)

  // a page (a module with a default export) answers refusals through its wrappers
  const isPage = file.statements.some(
    (s) =>
      (ts.isFunctionDeclaration(s) || ts.isClassDeclaration(s)) &&
      s.modifiers?.some((m) => m.kind === ts.SyntaxKind.DefaultKeyword),
  )
  if (!isPage) return found
  for (const statement of file.statements) {
    const exported = ts.canHaveModifiers(statement)
      ? ts.getModifiers(statement)?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword)
      : false
    if (!exported) continue
    if (ts.isFunctionDeclaration(statement) && statement.name && statement.name.text in PAGE_WRAPPERS) {
      const wrapper = PAGE_WRAPPERS[statement.name.text as keyof typeof PAGE_WRAPPERS]
      at(statement, `exports ${statement.name.text} without ${wrapper}`)
    }
    if (!ts.isVariableStatement(statement)) continue
    for (const declaration of statement.declarationList.declarations) {
      if (!ts.isIdentifier(declaration.name) || !(declaration.name.text in PAGE_WRAPPERS)) continue
      const wrapper = PAGE_WRAPPERS[declaration.name.text as keyof typeof PAGE_WRAPPERS]
      const init = declaration.initializer
      const body = init && ts.isArrowFunction(init) ? init.body : undefined
      const wrapped =
        body && ts.isCallExpression(body) && ts.isIdentifier(body.expression) && body.expression.text === wrapper
      if (!wrapped) at(declaration, `exports ${declaration.name.text} without ${wrapper}`)
    }
  }
  return found
}

describe('one error path', () => {
  const classes = serviceErrorClasses()

  it('knows the ServiceError classes, the subclasses too', () => {
    expect([...classes]).toEqual(expect.arrayContaining(['ServiceError', 'VideoLocked', 'UploadRefused']))
  })

  it('no route module catches a refusal itself, and every page loader and action has its wrapper', () => {
    const files = filesUnder(path.join(ROOT, 'app/routes'))
    expect(files.length).toBeGreaterThan(90)
    const found = files.flatMap((file) => violations(path.relative(ROOT, file), readFileSync(file, 'utf8'), classes))
    expect(found).toEqual([])
  })

  it('fails on each way a route used to answer a refusal itself', () => {
    const check = (source: string) => violations('app/routes/x.tsx', source, classes)
    // a catch that picks the answer from the refusal's status
    expect(
      check(`try { await run() } catch (error) {
        if (isServiceError(error) && error.status === 403) throw redirect('/courses')
        throw error
      }`),
    ).toEqual(["app/routes/x.tsx:2 reads the caught error's .status", 'app/routes/x.tsx:2 uses isServiceError'])
    expect(check(`try { await run() } catch (e) { if (e instanceof VideoLocked) return back() }`)).toEqual([
      'app/routes/x.tsx:1 tests instanceof VideoLocked',
    ])
    expect(check(`run().catch((refused) => json({ errors: refused.errors }, { status: 400 }))`)).toEqual([
      "app/routes/x.tsx:1 reads the caught error's .errors",
    ])
    expect(check(`try { return await load() } catch (error) { return errorResponse(error) }`)).toEqual([
      'app/routes/x.tsx:1 uses errorResponse',
    ])
    // a page whose loader or action bypasses its wrapper
    expect(
      check(`export async function loader() { return null }
      export const action = ({ request }) => save(request)
      export default function Page() { return null }`),
    ).toEqual([
      'app/routes/x.tsx:1 exports loader without pageLoader',
      'app/routes/x.tsx:2 exports action without pageAction',
    ])
    // as routes are written now
    expect(
      check(`export const loader = (args) => pageLoader(args, loadPage)
      export const action = (args) => pageAction(args, runAction, { redirects: [{ to: () => '/' }] })
      try { await x() } catch (error) { if (!(error instanceof ZodError)) throw error }
      export default function Page() { return null }`),
    ).toEqual([])
  })
})
