/// <reference types="vite/client" />
import { describe, expect, it } from 'vitest'

// Every /api route answers every method itself: a module without a loader or an action would let
// Remix answer the other methods with {"message":"Unexpected Server Error"}.

type RouteModule = { loader?: unknown; action?: unknown }
const routes = import.meta.glob<RouteModule>('../../app/routes/api+/*.ts', { eager: true })

describe('/api routes and HTTP methods', () => {
  it('every route module exports both a loader and an action', () => {
    const names = Object.keys(routes)
    expect(names.length).toBeGreaterThan(40)
    const missing = names.filter(
      (name) => typeof routes[name].loader !== 'function' || typeof routes[name].action !== 'function',
    )
    expect(missing).toEqual([])
  })

  it('a read-only call answers another method with 405, an Allow header and a message', async () => {
    const { action } = routes['../../app/routes/api+/category.courses.ts'] as { action: () => Response }
    const response = action()
    expect(response.status).toBe(405)
    expect(response.headers.get('Allow')).toBe('GET')
    expect(await response.json()).toEqual({ message: 'Method not allowed; use GET.' })
  })
})
