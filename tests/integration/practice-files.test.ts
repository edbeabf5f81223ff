import { readFile, stat } from 'node:fs/promises'
import path from 'node:path'
import { PGlite } from '@electric-sql/pglite'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { emptyCluster, fsBundleForBrowsers, pgliteDist } from '../../server/build-practice.js'

// What `npm run build` makes for practice in the browser besides the worker: the empty cluster every practice
// database opens (initdb run once, at build time) and PGlite's file-system image without the files only initdb
// reads and the libraries PGlite does not run (encoding conversions, replication). The browser opens the one with the other, never running initdb; PostgreSQL must still have everything it
// reads at run time (time zones, text search, ICU collations, the information schema, PL/pgSQL).

describe('the practice files the build makes', () => {
  const dist = pgliteDist()
  let db: PGlite
  let image: Awaited<ReturnType<typeof fsBundleForBrowsers>>
  let original: Buffer

  beforeAll(async () => {
    image = await fsBundleForBrowsers(dist)
    original = await readFile(path.join(dist, 'pglite.data'))
    const cluster = await readFile(await emptyCluster(dist))
    // as the practice worker opens it: no initdb to run, 32 MB of shared buffers
    db = await PGlite.create({
      fsBundle: new Blob([new Uint8Array(image.bytes)]),
      loadDataDir: new Blob([new Uint8Array(cluster)]),
      initdbWasmModule: new WebAssembly.Module(Uint8Array.of(0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00)),
      startParams: [...PGlite.defaultStartParams, '-c', 'shared_buffers=32MB'],
    })
  }, 60_000)

  afterAll(async () => {
    await db?.close()
  })

  it('blanks the files only initdb reads and the libraries PGlite does not run, keeping the image’s size', () => {
    expect(image.bytes.length).toBe(original.length)
    // postgres.bki is about 1 MB and the encoding conversions 2 MB; every byte that changed became a zero
    expect(image.blanked).toBeGreaterThan(3_000_000)
    let changed = 0
    let changedToOther = 0
    for (let i = 0; i < original.length; i++) {
      if (image.bytes[i] === original[i]) continue
      changed++
      if (image.bytes[i] !== 0) changedToOther++
    }
    expect(changed).toBeGreaterThan(2_800_000)
    expect(changedToOther).toBe(0)
    // the bootstrap catalog's text is gone, a time zone's data is not
    expect(image.bytes.includes('create pg_proc')).toBe(false)
    expect(original.includes('create pg_proc')).toBe(true)
    expect(image.bytes.includes('TZif')).toBe(true)
    // a conversion library's own name is gone with it; PL/pgSQL's library stays
    expect(original.includes('utf8_to_sjis')).toBe(true)
    expect(image.bytes.includes('utf8_to_sjis')).toBe(false)
    expect(image.bytes.includes('plpgsql_call_handler')).toBe(true)
  })

  it('opens as a database with what PostgreSQL reads at run time', async () => {
    // ICU's collation puts a before B, where the byte order ("C") would not
    const { rows } = await db.query<Record<string, string>>(
      `SELECT to_tsvector('english', 'The running dogs')::text AS words,
              (timestamptz '2025-07-01 12:00+00' AT TIME ZONE 'Europe/Paris')::text AS paris,
              ('a' < 'B' COLLATE "unicode")::text AS icu,
              (SELECT count(*) FROM information_schema.tables WHERE table_schema = 'pg_catalog')::int > 0 AS views`,
    )
    expect(rows[0]).toEqual({ words: "'dog':3 'run':2", paris: '2025-07-01 14:00:00', icu: 'true', views: true })
    await db.exec(`CREATE TABLE t (n int); DO $$ BEGIN INSERT INTO t SELECT generate_series(1, 3); END $$;`)
    expect((await db.query<{ n: number }>('SELECT sum(n)::int AS n FROM t')).rows[0]?.n).toBe(6)
  })

  it('leaves the cluster one write-ahead log segment, not the one initdb wrote', async () => {
    const { rows } = await db.query<{ name: string }>('SELECT name FROM pg_ls_waldir()')
    expect(rows).toHaveLength(1)
    expect(rows[0]?.name).not.toBe('000000010000000000000001')
    expect((await db.query<{ s: string }>("SELECT current_setting('shared_buffers') AS s")).rows[0]?.s).toBe('32MB')
  })

  it('makes the cluster once and keeps it for the next build', async () => {
    const file = await emptyCluster(dist)
    const made = (await stat(file)).mtimeMs
    expect(await emptyCluster(dist)).toBe(file)
    expect((await stat(file)).mtimeMs).toBe(made)
  })
})
