import { describe, expect, it } from 'vitest'
import { prefetchScript } from './use-practice-db.ts'

// The lab page's own script that asks for PostgreSQL's files as its HTML is read: the addresses go into the page's
// HTML inside a <script>, so none can end it early, and it asks only where the practice worker could run.

const setup = (worker: string) => ({
  worker,
  files: { pgliteWasm: '/build/practice/pglite-1.wasm', fsBundle: '/build/practice/pglite-1.data', cluster: '/c.tar' },
  dataset: '/course/1/lab/1/practice?v=1',
  version: '1',
})

describe('the prefetch script', () => {
  it('names the worker, the WebAssembly and the image, not the cluster or the dataset, behind a feature check', () => {
    const script = prefetchScript(setup('/build/practice/worker-1.js'))
    expect(script).toMatch(/^if \(typeof WebAssembly === 'object' && typeof Worker === 'function'\)/)
    expect(script).toContain(
      '["/build/practice/worker-1.js","/build/practice/pglite-1.wasm","/build/practice/pglite-1.data"]',
    )
    expect(script).not.toContain('/c.tar')
    expect(script).not.toContain('practice?v=1')
  })

  it('cannot be closed by an address', () => {
    const script = prefetchScript(setup('/x</script><script>alert(1)</script>.js'))
    expect(script).not.toContain('</script>')
    expect(script).toContain('\\u003c/script>')
  })
})
