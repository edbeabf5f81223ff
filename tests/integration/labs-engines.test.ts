import { mkdir, mkdtemp, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { closeSandbox } from '#app/modules/labs/sandbox.server.ts'
import { checkLabDirectory } from '#app/modules/labs/service.server.ts'

// An author's check also runs every solution on PGlite, loaded as the learner's browser loads it, and fails an
// exercise whose answer there is not the server's.

afterAll(() => closeSandbox())

const SLOW = { timeout: 180_000 }
const DEMOS = path.resolve(import.meta.dirname, '../../db/seeds/labs')

describe('PGlite against the server in the lab check', () => {
  for (const demo of ['sql-fundamentals', 'data-warehousing'])
    it(`gives the server's answers for every exercise of ${demo}`, SLOW, async () => {
      const report = await checkLabDirectory(path.join(DEMOS, demo))
      expect(report.problems).toEqual([])
      expect(report.ok).toBe(true)
    })

  it('fails an exercise whose answer PGlite gives differently, naming it', SLOW, async () => {
    const dir = path.join(await mkdtemp(path.join(os.tmpdir(), 'portal-engines-')), 'lab')
    await mkdir(dir)
    await writeFile(path.join(dir, 'data.sql'), 'CREATE TABLE t (n int);\nINSERT INTO t VALUES (1);\n')
    await writeFile(
      path.join(dir, 'lab.yaml'),
      `title: Two engines
dataset: data.sql
exercises:
  - key: count
    title: Count
    prompt: Count the rows.
    solution: SELECT count(*) FROM t
  - key: version
    title: Version
    prompt: Which PostgreSQL runs this?
    solution: SELECT version()
`,
    )
    const report = await checkLabDirectory(dir)
    expect(report.ok).toBe(false)
    expect(report.exercises.find((e) => e.key === 'count')?.ok).toBe(true)
    expect(report.problems).toHaveLength(1)
    expect(report.problems[0]).toMatch(/^version: PGlite's answer differs from the server's/)
  })
})
