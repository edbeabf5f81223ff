import path from 'node:path'
import ts from 'typescript'
import { describe, expect, it } from 'vitest'

// Every export of app/, cli/, db/ and server/ is imported by another file, so an export left behind
// when its last user went is seen (and the code behind it with it). "Imported" is read by the type
// checker, so a type used only in type positions, a re-export, an `import type`, a JSDoc `@import`,
// a namespace import (`ns.name`; a namespace used whole, as db/migrate.ts spreads the migrations'
// `up` and `down`, uses all) and a dynamic `import()` (`.then((m) => m.name)`, `const { name } =`)
// all count. A test counts as a user: units are tested through their exports beside the code, and a
// few exports are there for tests (resetEnvCache, resetStorage …). The framework's uses do not go
// through an import; they are the names below.

const ROOT = path.resolve(import.meta.dirname, '..')
const SCOPE = /^(app|cli|db|server)\//
const ROUTE_EXPORTS = ['default', 'loader', 'action', 'meta', 'links', 'headers', 'handle', 'ErrorBoundary']
const FRAMEWORK: [RegExp, string[]][] = [
  // remix-flat-routes' route modules (remix.config.js leaves out `__*` files and tests)
  [/^app\/routes\/(?!.*\/__)(?!.*\.test\.tsx?$)/, [...ROUTE_EXPORTS, 'shouldRevalidate', 'clientLoader']],
  [/^app\/root\.tsx$/, [...ROUTE_EXPORTS, 'Layout']],
  // serverHooks is read from the build by server/web-server.js (ADR 034)
  [/^app\/entry\.server\.tsx$/, ['default', 'handleError', 'serverHooks']],
]

function unusedExports() {
  const config = ts.getParsedCommandLineOfConfigFile(
    path.join(ROOT, 'tsconfig.json'),
    {},
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (d) => {
        throw new Error(ts.flattenDiagnosticMessageText(d.messageText, '\n'))
      },
    },
  )!
  // Packages' types do not say which of our exports are used: read them as empty, and save the time.
  const host = ts.createCompilerHost(config.options)
  const read = host.getSourceFile
  host.getSourceFile = (name, ...rest) =>
    /\/node_modules\/(?!typescript\/lib\/)/.test(name)
      ? ts.createSourceFile(name, 'export {}', ts.ScriptTarget.Latest)
      : read(name, ...rest)
  const program = ts.createProgram(config.fileNames, config.options, host)
  const checker = program.getTypeChecker()
  const ours = new Set(program.getSourceFiles().filter((f) => !/\/node_modules\/|\.d\.ts$/.test(f.fileName)))
  const exportsOf = (file: ts.SourceFile) => {
    const module = checker.getSymbolAtLocation(file)
    return module ? checker.getExportsOfModule(module) : []
  }
  const names = new Set([...ours].flatMap((file) => exportsOf(file).map((e) => e.name)))

  // An export is used when a name in another file resolves to it, through any re-exports between.
  const used = new Set<ts.Symbol>()
  const fileOf = (s: ts.Symbol) => s.declarations?.[0]?.getSourceFile()
  const markUsed = (start: ts.Symbol | undefined, from: ts.SourceFile, whole: boolean) => {
    const next = (s: ts.Symbol) =>
      s.flags & ts.SymbolFlags.Alias && ours.has(fileOf(s)!) ? checker.getImmediateAliasedSymbol(s) : undefined
    for (let s = start; s; s = next(s)) {
      if (fileOf(s) !== from) used.add(s)
      if (whole && s.valueDeclaration && ts.isSourceFile(s.valueDeclaration))
        exportsOf(s.valueDeclaration).forEach((e) => used.add(e))
    }
  }
  for (const file of ours) {
    // only files with a namespace or dynamic import reach exports by other means than an import's names
    const indirect = /\bimport\(|\* as /.test(file.text)
    const namespaces = file.statements.flatMap((s) => {
      const bound = ts.isImportDeclaration(s) ? s.importClause?.namedBindings : undefined
      return bound && ts.isNamespaceImport(bound) ? [bound.name.text] : []
    })
    const visit = (node: ts.Node, inImport: boolean) => {
      inImport ||= ts.isImportDeclaration(node) || ts.isExportDeclaration(node) || ts.isExportAssignment(node)
      inImport ||= ts.isImportTypeNode(node) || ts.isJSDocImportTag(node)
      if (
        ts.isIdentifier(node) &&
        (inImport || (indirect && (names.has(node.text) || namespaces.includes(node.text))))
      ) {
        const parent = node.parent
        const qualifies =
          (ts.isPropertyAccessExpression(parent) && parent.expression === node) ||
          (ts.isQualifiedName(parent) && parent.left === node)
        markUsed(checker.getSymbolAtLocation(node), file, !inImport && !qualifies)
        if (
          ts.isBindingElement(parent) &&
          ts.isObjectBindingPattern(parent.parent) &&
          (parent.propertyName ?? parent.name) === node
        ) {
          markUsed(checker.getTypeAtLocation(parent.parent).getProperty(node.text), file, false)
        }
      }
      for (const doc of (node as { jsDoc?: ts.Node[] }).jsDoc ?? []) visit(doc, inImport)
      ts.forEachChild(node, (child) => visit(child, inImport))
    }
    visit(file, false)
  }

  return [...ours].flatMap((file) => {
    const name = path.relative(ROOT, file.fileName)
    if (!SCOPE.test(name)) return []
    const framework = FRAMEWORK.flatMap(([files, exports]) => (files.test(name) ? exports : []))
    return (
      exportsOf(file)
        // a JSDoc @typedef in a .js module cannot be kept to its file: it is exported whether used or not
        .filter((e) => !e.declarations?.every(ts.isJSDocTypedefTag))
        .filter((e) => !used.has(e) && !framework.includes(e.name))
        .map((e) => `${name}: ${e.name}`)
    )
  })
}

describe('exports', () => {
  it('are each imported by another file, or used by the framework', () => {
    expect(unusedExports()).toEqual([])
  }, 120_000)
})
