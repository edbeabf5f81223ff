import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { readConfig } from '@remix-run/dev/dist/config.js'
import type * as Router from '@remix-run/router'
import * as esmBuild from '@remix-run/router/dist/router.js'
import { describe, expect, it } from 'vitest'
import { routeTree } from '../../server/web-server.js'

// The server's copy of the router (the CommonJS build Node loads) keeps each route table's ranked
// branches, the matches of recent paths and each compiled path between requests, and Remix's server
// render reuses one routes array (patches/). The browser's copy (the ES module build) is left as
// published. Both must match every URL to the same routes.

const require = createRequire(import.meta.url)
const serverRouter = require('@remix-run/router') as typeof Router
const unpatched = esmBuild as unknown as typeof Router

async function appRoutes(): Promise<{ tree: Router.AgnosticRouteObject[]; paths: string[] }> {
  const { routes } = await readConfig(process.cwd())
  const fullPath = (id: string): string => {
    const route = routes[id]
    const own = route.path ?? ''
    return route.parentId ? `${fullPath(route.parentId)}/${own}` : own
  }
  // every route's own URL with its values filled in, twice (two different values), plus URLs no route has
  const paths = Object.keys(routes).flatMap((id) => {
    const pattern = `/${fullPath(id)}`.replace(/\/+/g, '/')
    return [pattern.replace(/:\w+\??/g, '17').replace(/\*$/, 'a/b'), pattern.replace(/:\w+\??/g, 'x-y')]
  })
  paths.push('/', '/nothing/here', '/api/nothing', '/course', '/course/1/2/3/4', '/ADMIN/users', '/admin/users/')
  return { tree: routeTree(routes), paths }
}

const summary = (matches: ReturnType<typeof unpatched.matchRoutes>) =>
  matches?.map((match) => ({ id: match.route.id, params: match.params, pathname: match.pathname })) ?? null

describe('route matching on the server', () => {
  it('runs the patched router: the ranked branches and compiled paths are kept', () => {
    const source = readFileSync(require.resolve('@remix-run/router'), 'utf8')
    expect(source).toContain('function keptTableOf(routes)')
    expect(source).toContain('const compiledPaths = new Map()')
    // a page's render gets the same routes array on every request, so the kept matches serve it too
    expect(readFileSync(require.resolve('@remix-run/react/dist/server.js'), 'utf8')).toContain(
      'function serverRoutesOf(manifest, routeModules, future, isSpaMode)',
    )
    expect(readFileSync(require.resolve('react-router-dom/server.js'), 'utf8')).toContain(
      'const keptDataRoutes = new WeakMap()',
    )
  })

  it('matches every route of the app, and URLs of none, exactly as the published router does', async () => {
    const { tree, paths } = await appRoutes()
    expect(paths.length).toBeGreaterThan(150)
    let matched = 0
    // twice over the same table: the second pass reads what the first one kept
    for (const pass of [1, 2])
      for (const pathname of paths) {
        const expected = summary(unpatched.matchRoutes(tree, pathname))
        expect(summary(serverRouter.matchRoutes(tree, pathname)), `${pathname} (pass ${pass})`).toEqual(expected)
        if (expected) matched++
      }
    expect(matched).toBeGreaterThan(paths.length)
  })

  it('hands each caller matches of its own', async () => {
    const { tree } = await appRoutes()
    const first = serverRouter.matchRoutes(tree, '/course/5/9')
    expect(first?.at(-1)?.params).toEqual({ courseId: '5', videoId: '9' })
    ;(first!.at(-1)!.params as Record<string, string>).courseId = 'changed'
    first!.pop()
    const second = serverRouter.matchRoutes(tree, '/course/5/9')
    expect(second?.at(-1)?.params).toEqual({ courseId: '5', videoId: '9' })
    expect(second).toHaveLength(first!.length + 1)
    // the matches of one path share one params object, as the published router's do
    expect(new Set(second!.map((match) => match.params)).size).toBe(1)
  })

  it('sees routes patched into a table after it was first matched', () => {
    const router = serverRouter.createRouter({
      routes: [{ id: 'root', path: '/', children: [{ id: 'early', path: 'early' }] }],
      history: serverRouter.createMemoryHistory(),
    })
    const table = router.routes
    expect(serverRouter.matchRoutes(table, '/early')?.map((match) => match.route.id)).toEqual(['root', 'early'])
    expect(serverRouter.matchRoutes(table, '/late')).toBeNull()
    router.patchRoutes('root', [{ id: 'late', path: 'late' }])
    // the same array, its root route given a new child: what was kept for it is dropped
    expect(serverRouter.matchRoutes(table, '/late')?.map((match) => match.route.id)).toEqual(['root', 'late'])
    router.dispose()
  })
})
