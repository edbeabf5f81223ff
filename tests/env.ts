import { afterAll, beforeAll } from 'vitest'
import { resetEnvCache } from '#app/utils/env.server.ts'

// Settings a group of tests runs with: set before its first test, put back as they were after its last.

/** Registers the hooks that give the calling file or describe block `values` in its environment. */
export function useEnv(values: Record<string, string>) {
  const saved = Object.fromEntries(Object.keys(values).map((name) => [name, process.env[name]]))
  beforeAll(() => {
    Object.assign(process.env, values)
    resetEnvCache()
  })
  afterAll(() => {
    for (const [name, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[name]
      else process.env[name] = value
    }
    resetEnvCache()
  })
}
