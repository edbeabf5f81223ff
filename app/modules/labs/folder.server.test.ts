import { mkdir, mkdtemp, readdir, readFile, rm, symlink, truncate, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { strToU8, zipSync, type ZipOptions } from 'fflate'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { isServiceError, type ServiceError } from '../errors.ts'
import { LAB_FILES_LIMITS, readLabFolder, readLabZip, writeLabFolder, type LabFolder } from './folder.server.ts'

const LAB_YAML = `title: SQL fundamentals
dataset: shop.sql
exercises:
  - key: all-customers
    title: All customers
    prompt: List every customer.
    solution: SELECT * FROM customers
`
const SHOP_SQL =
  "CREATE TABLE customers (id int, name text);\nCOPY customers FROM 'customers.csv' WITH (FORMAT csv, HEADER);\n"

let dir: string
beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'portal-labs-test-'))
})
afterEach(async () => {
  await rm(dir, { recursive: true, force: true })
})

/** Files in the temp folder, by name; a folder for a name ending in /. */
async function files(entries: Record<string, string | Uint8Array>, into = dir) {
  for (const [name, content] of Object.entries(entries)) {
    if (name.endsWith('/')) await mkdir(path.join(into, name), { recursive: true })
    else await writeFile(path.join(into, name), content)
  }
}

async function refusal(promise: Promise<unknown>): Promise<ServiceError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  )
  if (!isServiceError(error)) throw new Error(`expected a ServiceError, got ${String(error)}`)
  return error
}

describe('readLabFolder', () => {
  it('reads lab.yaml, the dataset and the CSV files at the top, and nothing else', async () => {
    await files({
      'lab.yaml': LAB_YAML,
      'shop.sql': SHOP_SQL,
      'orders.csv': 'id\n1\n',
      'customers.csv': 'id,name\n1,Ana\n',
      'README.md': '# notes',
      'draft.sql': 'SELECT 1',
      '.hidden.csv': 'x',
      'old/': '',
      'old/archive.csv': 'x',
    })
    const lab = await readLabFolder(dir)
    expect(lab.definition).toMatchObject({ title: 'SQL fundamentals', dataset: 'shop.sql', minutes: 15 })
    expect(lab.datasetSql).toBe(SHOP_SQL)
    expect(lab.dataFiles).toEqual([
      { name: 'customers.csv', content: Buffer.from('id,name\n1,Ana\n') },
      { name: 'orders.csv', content: Buffer.from('id\n1\n') },
    ])
  })

  it('drops the BOM of lab.yaml, the dataset and a CSV file', async () => {
    await files({
      'lab.yaml': `\uFEFF${LAB_YAML}`,
      'shop.sql': `\uFEFF${SHOP_SQL}`,
      'customers.csv': '\uFEFFid,name\n',
    })
    const lab = await readLabFolder(dir)
    expect(lab.datasetSql).toBe(SHOP_SQL)
    expect(lab.dataFiles[0].content).toEqual(Buffer.from('id,name\n'))
  })

  it.each<[string, Record<string, string | Uint8Array>, string | RegExp]>([
    ['no lab.yaml', { 'shop.sql': SHOP_SQL }, /^The folder .* has no lab\.yaml\.$/],
    [
      'lab.yml instead',
      { 'lab.yml': LAB_YAML, 'shop.sql': SHOP_SQL },
      /has no lab\.yaml \(it has lab\.yml; the file must be named exactly lab\.yaml\)\.$/,
    ],
    [
      'a lab.yaml that is not a lab',
      {
        'lab.yaml': LAB_YAML.replace('    solution: SELECT * FROM customers\n', '    hint: x\n'),
        'shop.sql': SHOP_SQL,
      },
      'lab.yaml is not a valid lab: exercises[0].solution: Required; exercises[0].hint: Unknown key (did you mean hints?).',
    ],
    [
      'a lab.yaml that is not YAML',
      { 'lab.yaml': 'title: a\ntitle: b\n' },
      'lab.yaml is not a valid lab: line 2, column 1: Map keys must be unique.',
    ],
    [
      'the dataset missing',
      { 'lab.yaml': LAB_YAML, 'Shop.sql': SHOP_SQL, 'extra.sql': '' },
      /^lab\.yaml names the dataset shop\.sql, but the folder .* has no such file \(its \.sql files: (Shop|extra)\.sql, (Shop|extra)\.sql\)\.$/,
    ],
    [
      'no .sql file at all',
      { 'lab.yaml': LAB_YAML },
      /^lab\.yaml names the dataset shop\.sql, but the folder .* has no \.sql file\.$/,
    ],
    [
      'a lab.yaml in Latin-1',
      { 'lab.yaml': Buffer.from(LAB_YAML.replace('SQL fundamentals', 'Données'), 'latin1'), 'shop.sql': SHOP_SQL },
      'lab.yaml is not UTF-8 text. Save it as UTF-8.',
    ],
    [
      'a dataset in UTF-16',
      { 'lab.yaml': LAB_YAML, 'shop.sql': Buffer.from(SHOP_SQL, 'utf16le') },
      'shop.sql is not text: it holds NUL bytes (a binary file, or text saved as UTF-16). Save it as UTF-8.',
    ],
    [
      'a CSV file that is not UTF-8',
      { 'lab.yaml': LAB_YAML, 'shop.sql': SHOP_SQL, 'customers.csv': Buffer.from('id,name\n1,Jos\xe9\n', 'latin1') },
      'customers.csv is not UTF-8 text. Save it as UTF-8.',
    ],
  ])('refuses %s', async (_, entries, message) => {
    await files(entries)
    const error = await refusal(readLabFolder(dir))
    expect(error.status).toBe(400)
    expect(error.message).toMatch(message)
  })

  it('refuses a folder that is not there, and a file', async () => {
    expect((await refusal(readLabFolder(path.join(dir, 'nowhere')))).message).toMatch(/^There is no lab folder at /)
    await files({ 'lab.yaml': LAB_YAML })
    expect((await refusal(readLabFolder(path.join(dir, 'lab.yaml')))).message).toMatch(
      /lab\.yaml is a file, not a lab folder\.$/,
    )
  })

  it('refuses a link among the lab files, which could lead outside the folder', async () => {
    const elsewhere = await mkdtemp(path.join(os.tmpdir(), 'portal-labs-elsewhere-'))
    try {
      await files({ 'secret.csv': 'password\nhunter2\n' }, elsewhere)
      await files({ 'lab.yaml': LAB_YAML, 'shop.sql': SHOP_SQL })
      await symlink(path.join(elsewhere, 'secret.csv'), path.join(dir, 'customers.csv'))
      expect((await refusal(readLabFolder(dir))).message).toMatch(
        /^customers\.csv in .* is a symbolic link; put the file itself there\.$/,
      )
    } finally {
      await rm(elsewhere, { recursive: true, force: true })
    }
  })

  it('refuses lab files beyond the size limit before reading them', async () => {
    await files({ 'lab.yaml': LAB_YAML, 'shop.sql': SHOP_SQL, 'big.csv': '' })
    // a sparse file: its size is stated without the bytes being written
    await truncate(path.join(dir, 'big.csv'), LAB_FILES_LIMITS.bytes)
    expect((await refusal(readLabFolder(dir))).message).toMatch(
      /holds 51 MB of lab files; a lab may have at most 50 MB\.$/,
    )
  })

  it('refuses more lab files than the limit', async () => {
    await files({ 'lab.yaml': LAB_YAML, 'shop.sql': SHOP_SQL })
    await files(Object.fromEntries(Array.from({ length: LAB_FILES_LIMITS.files - 1 }, (_, i) => [`t${i}.csv`, 'x'])))
    expect((await refusal(readLabFolder(dir))).message).toMatch(/holds 201 lab files; a lab may have at most 200\.$/)
  })
})

/** A lab as readLabFolder gives it back. */
async function labFolder(): Promise<LabFolder> {
  await files({ 'lab.yaml': LAB_YAML, 'shop.sql': SHOP_SQL, 'customers.csv': 'id,name\n1,Ana\n' })
  const lab = await readLabFolder(dir)
  await rm(dir, { recursive: true, force: true })
  return lab
}

describe('writeLabFolder', () => {
  it('writes a folder that reads back as the same lab, making the folders it needs', async () => {
    const lab = await labFolder()
    lab.definition.exercises[0].solution = 'SELECT *\nFROM customers\nORDER BY id;\n'
    const target = path.join(dir, 'labs', 'sql-fundamentals')
    await writeLabFolder(target, lab)
    expect((await readdir(target)).sort()).toEqual(['customers.csv', 'lab.yaml', 'shop.sql'])
    expect(await readFile(path.join(target, 'lab.yaml'), 'utf8')).toContain('    solution: |\n      SELECT *\n')
    expect(await readLabFolder(target)).toEqual(lab)
  })

  it('writes into an empty folder', async () => {
    const lab = await labFolder()
    await mkdir(dir)
    await writeLabFolder(dir, lab)
    expect(await readLabFolder(dir)).toEqual(lab)
  })

  it('refuses a folder that holds other things and no lab.yaml', async () => {
    const lab = await labFolder()
    await mkdir(dir)
    await files({ 'notes.txt': 'mine' })
    const error = await refusal(writeLabFolder(dir, lab))
    expect(error.status).toBe(409)
    expect(error.message).toMatch(
      /is not empty and holds no lab\.yaml; write the lab to an empty folder or to a lab's folder\.$/,
    )
    expect(await readdir(dir)).toEqual(['notes.txt'])
  })

  it("updates a lab's folder: its files replaced, those it no longer has removed, the author's own kept", async () => {
    const lab = await labFolder()
    await mkdir(dir)
    await files({
      'lab.yaml': LAB_YAML.replace('shop.sql', 'old.sql').replace('SQL fundamentals', 'An older title'),
      'old.sql': 'SELECT 1',
      'orders.csv': 'id\n',
      'customers.csv': 'old',
      'README.md': '# mine',
      'draft.sql': 'SELECT 2',
    })
    await writeLabFolder(dir, lab)
    expect((await readdir(dir)).sort()).toEqual(['README.md', 'customers.csv', 'draft.sql', 'lab.yaml', 'shop.sql'])
    expect(await readLabFolder(dir)).toEqual(lab)
  })

  it('replaces a link in the folder rather than writing where it points', async () => {
    const lab = await labFolder()
    const elsewhere = await mkdtemp(path.join(os.tmpdir(), 'portal-labs-elsewhere-'))
    try {
      await mkdir(dir)
      await files({ 'lab.yaml': LAB_YAML, 'precious.csv': 'keep me' }, elsewhere)
      await files({ 'lab.yaml': LAB_YAML })
      await symlink(path.join(elsewhere, 'precious.csv'), path.join(dir, 'customers.csv'))
      await writeLabFolder(dir, lab)
      expect(await readFile(path.join(elsewhere, 'precious.csv'), 'utf8')).toBe('keep me')
      expect(await readLabFolder(dir)).toEqual(lab)
    } finally {
      await rm(elsewhere, { recursive: true, force: true })
    }
  })

  it.each<[string, (lab: LabFolder) => void, string]>([
    [
      'an invalid definition',
      (l) => (l.definition.exercises[0].key = 'Not A Key'),
      'The lab is not valid: exercises[0].key: Must be 1 to 64',
    ],
    [
      'a CSV name with a folder',
      (l) => (l.dataFiles[0].name = '../customers.csv'),
      '../customers.csv is not a name for a lab',
    ],
    [
      'a CSV name that is not .csv',
      (l) => (l.dataFiles[0].name = 'customers.txt'),
      'customers.txt is not a name for a lab',
    ],
    ['a hidden CSV file', (l) => (l.dataFiles[0].name = '.customers.csv'), '.customers.csv is not a name for a lab'],
    [
      'two CSV files of one name',
      (l) => l.dataFiles.push(l.dataFiles[0]),
      'The lab has two CSV files named customers.csv.',
    ],
  ])('refuses %s and writes nothing', async (_, change, message) => {
    const lab = await labFolder()
    change(lab)
    const error = await refusal(writeLabFolder(dir, lab))
    expect(error.status).toBe(400)
    expect(error.message).toContain(message)
    await expect(readdir(dir)).rejects.toThrow(/ENOENT/)
  })
})

/** A zip built as an author's tool would build it; a value of [content, options] sets an entry's attributes. */
const zipOf = (entries: Record<string, string | Uint8Array | [string, ZipOptions]>) =>
  zipSync(
    Object.fromEntries(
      Object.entries(entries).map(([name, value]) => [
        name,
        Array.isArray(value) ? [strToU8(value[0]), value[1]] : typeof value === 'string' ? strToU8(value) : value,
      ]),
    ),
  )

const LAB_ENTRIES = { 'lab.yaml': LAB_YAML, 'shop.sql': SHOP_SQL, 'customers.csv': 'id,name\n1,Ana\n' }

/** Sets a 32-bit field of the directory entry of `name` (at `field` bytes from the entry's start). */
function patchDirectory(zip: Uint8Array, name: string, field: number, value: number) {
  const view = new DataView(zip.buffer, zip.byteOffset, zip.byteLength)
  for (let at = 0; at + 46 < zip.length; at++) {
    if (view.getUint32(at, true) !== 0x02014b50) continue
    const length = view.getUint16(at + 28, true)
    if (Buffer.from(zip.subarray(at + 46, at + 46 + length)).toString() !== name) continue
    view.setUint32(at + field, value, true)
    return zip
  }
  throw new Error(`no directory entry ${name}`)
}
const UNPACKED_SIZE = 24
const CHECKSUM = 16

function zipRefusal(zip: Uint8Array) {
  try {
    readLabZip(zip)
  } catch (error) {
    if (isServiceError(error)) return error
    throw error
  }
  throw new Error('the zip was expected to be refused')
}

describe('readLabZip', () => {
  it('reads a zip of the folder’s files, as the folder reads', async () => {
    await files(LAB_ENTRIES)
    const lab = await readLabFolder(dir)
    expect(readLabZip(zipOf({ ...LAB_ENTRIES, 'README.md': '# mine', 'old/archive.csv': 'x' }))).toEqual(lab)
  })

  it('reads a zip of the folder itself, past __MACOSX, hidden files and folder entries', async () => {
    await files(LAB_ENTRIES)
    const lab = await readLabFolder(dir)
    const zip = zipOf({
      'sql-fundamentals/': new Uint8Array(),
      ...Object.fromEntries(Object.entries(LAB_ENTRIES).map(([name, text]) => [`sql-fundamentals/${name}`, text])),
      'sql-fundamentals/.hidden.csv': 'x',
      'sql-fundamentals/data/extra.csv': 'x',
      '__MACOSX/sql-fundamentals/._lab.yaml': new Uint8Array([0, 5, 22, 7]),
      '.DS_Store': new Uint8Array([0, 0, 0, 1]),
    })
    expect(readLabZip(zip)).toEqual(lab)
  })

  it('reads entries stored without compression', () => {
    const zip = zipSync(Object.fromEntries(Object.entries(LAB_ENTRIES).map(([n, t]) => [n, strToU8(t)])), { level: 0 })
    expect(readLabZip(zip).datasetSql).toBe(SHOP_SQL)
  })

  it.each<[string, Uint8Array, string | RegExp]>([
    ['no lab.yaml', zipOf({ 'shop.sql': SHOP_SQL }), 'The zip has no lab.yaml.'],
    [
      'a lab.yaml two folders down',
      zipOf({ 'labs/sql-fundamentals/lab.yaml': LAB_YAML, 'labs/sql-fundamentals/shop.sql': SHOP_SQL }),
      'The zip has labs/sql-fundamentals/lab.yaml, too deep',
    ],
    [
      'files in two top folders',
      zipOf({ 'a/lab.yaml': LAB_YAML, 'b/shop.sql': SHOP_SQL }),
      'The zip has a/lab.yaml, too deep',
    ],
    [
      'a dataset that is not there',
      zipOf({ 'lab.yaml': LAB_YAML }),
      'lab.yaml names the dataset shop.sql, but the zip has no .sql file.',
    ],
    [
      'an invalid lab.yaml',
      zipOf({ 'lab.yaml': 'title: SQL\n', 'shop.sql': SHOP_SQL }),
      'lab.yaml is not a valid lab: dataset: Required; exercises: Required.',
    ],
    [
      'a dataset that is not UTF-8',
      zipOf({ 'lab.yaml': LAB_YAML, 'shop.sql': Buffer.from('SELECT \xe9', 'latin1') }),
      'shop.sql is not UTF-8 text. Save it as UTF-8.',
    ],
    [
      'a name that climbs out',
      zipOf({ ...LAB_ENTRIES, '../evil.csv': 'x' }),
      '../evil.csv in the zip climbs out of the folder with .. in its name.',
    ],
    ['a name that climbs out midway', zipOf({ ...LAB_ENTRIES, 'a/../../evil.csv': 'x' }), 'climbs out of the folder'],
    [
      'a climbing name hidden in __MACOSX',
      zipOf({ ...LAB_ENTRIES, '__MACOSX/../../evil': 'x' }),
      'climbs out of the folder',
    ],
    [
      'an absolute name',
      zipOf({ ...LAB_ENTRIES, '/etc/cron.d/evil': 'x' }),
      '/etc/cron.d/evil in the zip has an absolute path.',
    ],
    ['a drive letter', zipOf({ ...LAB_ENTRIES, 'C:/evil.csv': 'x' }), 'C:/evil.csv in the zip has an absolute path.'],
    ['a backslash', zipOf({ ...LAB_ENTRIES, '..\\evil.csv': 'x' }), /has a \\ in its name/],
    [
      'a symbolic link',
      zipOf({ ...LAB_ENTRIES, 'orders.csv': ['/etc/passwd', { os: 3, attrs: (0o120777 << 16) >>> 0 }] }),
      'orders.csv in the zip is a symbolic link; zip the file itself.',
    ],
    [
      'more entries than the limit',
      zipOf({ ...LAB_ENTRIES, ...Object.fromEntries(Array.from({ length: 198 }, (_, i) => [`notes/${i}.txt`, 'x'])) }),
      'The zip holds 201 entries; a lab zip may hold at most 200.',
    ],
    [
      'a declared size beyond the limit, before anything is inflated',
      patchDirectory(zipOf({ ...LAB_ENTRIES, 'big.csv': 'id\n' }), 'big.csv', UNPACKED_SIZE, 60 * 1024 * 1024),
      'The zip unpacks to 61 MB; a lab may have at most 50 MB.',
    ],
    [
      'declared sizes that together pass the limit',
      ['a', 'b', 'c'].reduce<Uint8Array>(
        (zip, name) => patchDirectory(zip, `${name}.txt`, UNPACKED_SIZE, 20 * 1024 * 1024),
        zipOf({ ...LAB_ENTRIES, 'a.txt': 'x', 'b.txt': 'x', 'c.txt': 'x' }),
      ),
      'The zip unpacks to 61 MB; a lab may have at most 50 MB.',
    ],
    [
      'an entry that unpacks to more than it declares',
      patchDirectory(
        zipOf({ ...LAB_ENTRIES, 'orders.csv': 'id\n'.repeat(200_000) }),
        'orders.csv',
        UNPACKED_SIZE,
        1000,
      ),
      'orders.csv in the zip unpacks to more than the 1000 bytes it declares.',
    ],
    [
      'an entry whose checksum does not match',
      patchDirectory(zipOf(LAB_ENTRIES), 'customers.csv', CHECKSUM, 12345),
      'The file is not a zip that can be read (customers.csv is damaged).',
    ],
    [
      'a file that is not a zip',
      strToU8(LAB_YAML),
      'The file is not a zip that can be read (no end of its directory).',
    ],
    ['lab.yaml twice', zipOf({ ...LAB_ENTRIES, './lab.yaml': LAB_YAML }), 'The zip holds lab.yaml twice.'],
  ])('refuses %s', (_, zip, message) => {
    const error = zipRefusal(zip)
    expect(error.status).toBe(400)
    expect(error.message).toMatch(message)
  })

  it('stops inflating a bomb that lies about its size a step past what it declared', () => {
    // 40 MB of zeros deflate to about 40 KB; the entry claims 10 bytes
    const bomb = zipSync({
      ...Object.fromEntries(Object.entries(LAB_ENTRIES).map(([n, t]) => [n, strToU8(t)])),
      'zeros.csv': new Uint8Array(40 * 1024 * 1024),
    })
    patchDirectory(bomb, 'zeros.csv', UNPACKED_SIZE, 10)
    expect(bomb.length).toBeLessThan(100_000)
    expect(zipRefusal(bomb).message).toBe('zeros.csv in the zip unpacks to more than the 10 bytes it declares.')
    // zipping 40 MB of zeros takes seconds on a busy machine
  }, 30_000)
})
