import { execFile } from 'node:child_process'
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'
import QRCode from 'qrcode'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { renderCertificatePdf } from '#app/modules/certificates/pdf.server.ts'

// A certificate's PDF read back as a person would: its text as a viewer extracts it (poppler's pdftotext),
// its QR code as a phone scans it (the page rendered by pdftoppm, decoded by zbarimg), its page and
// metadata as pdfinfo prints them.

const run = promisify(execFile)
let folder: string
let files = 0

beforeAll(async () => {
  folder = await mkdtemp(path.join(os.tmpdir(), 'portal-certificate-pdf-'))
})
afterAll(async () => {
  await rm(folder, { recursive: true, force: true })
})

const CODE = '7KQ2M9XDAB3CDEFGHJKMNPQRST'
const URL = `https://portal.example.com/verify/7KQ2-M9XD-AB3C-DEFG-HJKM-NPQR-ST`
const FACTS: Parameters<typeof renderCertificatePdf>[0]['facts'] = {
  code: CODE,
  kind: 'course',
  title: 'Relational Database Design with PostgreSQL',
  learnerName: 'Ada Lovelace',
  // late in the evening in UTC: the next day east of Greenwich, and the certificate still says the 27th
  issuedAt: new Date('2026-11-27T23:30:00Z'),
  minutes: 210,
  issuerName: 'Northwind Data Academy',
}

async function render(facts: Partial<typeof FACTS> = {}, signature?: Uint8Array) {
  const pdf = await renderCertificatePdf({ facts: { ...FACTS, ...facts }, verifyUrl: URL, signature })
  const file = path.join(folder, `certificate-${++files}.pdf`)
  await writeFile(file, pdf)
  return { pdf, file }
}

const text = async (file: string) => (await run('pdftotext', ['-layout', file, '-'])).stdout
/** the text with its line breaks and layout spacing as single spaces: what a reader reads */
const reading = async (file: string) => (await text(file)).replace(/\s+/g, ' ').trim()
const info = async (file: string) => (await run('pdfinfo', [file])).stdout
/** the images on the page (a PNG's transparency, a separate "smask", not counted) */
async function images(file: string) {
  const { stdout } = await run('pdfimages', ['-list', file])
  return stdout.split('\n').filter((line) => line.trim().split(/\s+/)[2] === 'image').length
}

/** Every word's box on the page, as pdftotext -bbox gives it. */
async function words(file: string) {
  const { stdout } = await run('pdftotext', ['-bbox', file, '-'])
  const page = /<page width="([\d.]+)" height="([\d.]+)"/.exec(stdout)!
  const boxes = [...stdout.matchAll(/<word xMin="([\d.]+)" yMin="([\d.]+)" xMax="([\d.]+)" yMax="([\d.]+)">/g)]
  return {
    width: Number(page[1]),
    height: Number(page[2]),
    boxes: boxes.map((m) => ({ xMin: Number(m[1]), yMin: Number(m[2]), xMax: Number(m[3]), yMax: Number(m[4]) })),
  }
}

/** Every word inside the page's frame (24 pt from each edge). */
async function expectInsideFrame(file: string) {
  const { width, height, boxes } = await words(file)
  expect(boxes.length).toBeGreaterThan(10)
  for (const box of boxes) {
    expect(box.xMin).toBeGreaterThanOrEqual(24)
    expect(box.xMax).toBeLessThanOrEqual(width - 24)
    expect(box.yMin).toBeGreaterThanOrEqual(24)
    expect(box.yMax).toBeLessThanOrEqual(height - 24)
  }
}

describe('a certificate’s PDF', () => {
  it('states the learner, the course, the day, the hours and the code, on an A4 landscape page', async () => {
    const { pdf, file } = await render()
    const read = await reading(file)
    expect(read).toContain('Certificate of completion')
    expect(read).toContain('Ada Lovelace')
    expect(read).toContain('has completed the course')
    expect(read).toContain('Relational Database Design with PostgreSQL')
    expect(read).toContain('27 November 2026')
    expect(read).toContain('3.5 hours')
    expect(read).toContain('Northwind Data Academy')
    expect(read).toContain('Certificate code 7KQ2-M9XD-AB3C-DEFG-HJKM-NPQR-ST')
    expect(read).toContain(URL)
    expect(await reading((await render({ kind: 'program' })).file)).toContain('has completed the program')

    const meta = await info(file)
    expect(meta).toMatch(/^Page size:\s+841\.89 x 595\.28 pts/m)
    expect(meta).toMatch(/^Pages:\s+1$/m)
    expect(meta).toMatch(/^Title:\s+Certificate: Relational Database Design with PostgreSQL$/m)
    expect(meta).toMatch(/^Author:\s+Northwind Data Academy$/m)
    expect(meta).toMatch(/^Creator:\s+portal$/m)
    // the fonts are embedded as subsets: the page is small enough to mail
    expect(pdf.byteLength).toBeLessThan(150_000)
    await expectInsideFrame(file)
  })

  it('says the day of issue in UTC, whatever the server’s time zone', async () => {
    const zone = process.env.TZ
    process.env.TZ = 'Pacific/Auckland'
    try {
      expect(await reading((await render()).file)).toContain('27 November 2026')
    } finally {
      if (zone === undefined) delete process.env.TZ
      else process.env.TZ = zone
    }
  })

  it('has a QR code that a phone reads as the verify address', async () => {
    const { file } = await render()
    const image = path.join(folder, 'scan')
    await run('pdftoppm', ['-png', '-r', '150', '-singlefile', file, image])
    const { stdout } = await run('zbarimg', ['-q', '--raw', `${image}.png`])
    expect(stdout.trim()).toBe(URL)
  })

  it('is the same file every time the same certificate is rendered', async () => {
    const first = await render()
    const second = await render()
    expect(Buffer.from(second.pdf).equals(Buffer.from(first.pdf))).toBe(true)
    // the file's dates are the moment of issue, not the time of rendering (which would differ by the second)
    const { stdout } = await run('pdfinfo', ['-isodates', first.file])
    expect(stdout).toMatch(/^CreationDate:\s+2026-11-27T23:30:00Z$/m)
    expect(stdout).toMatch(/^ModDate:\s+2026-11-27T23:30:00Z$/m)
  })

  it('spells Greek names and names typed with combining accents', async () => {
    expect(await reading((await render({ learnerName: 'Αικατερίνη Παπαδοπούλου' })).file)).toContain(
      'Αικατερίνη Παπαδοπούλου',
    )
    // typed as letters followed by combining accents; drawn, and read back, as the composed letters
    const read = await reading((await render({ learnerName: 'Jose\u0301 Nun\u0303ez' })).file)
    expect(read.normalize('NFC')).toContain('José Nuñez')
    expect(read).toContain('José Nuñez')
  })

  it('draws a "?" for each character the font lacks rather than failing', async () => {
    const rocket = await reading((await render({ learnerName: 'Ana 🚀 Lee' })).file)
    expect(rocket).toContain('Ana ? Lee')
    // a thumbs-up with a skin tone is one character to a reader: one "?"
    const chinese = await reading((await render({ learnerName: '李小龙 👍🏽' })).file)
    expect(chinese).toContain('??? ?')
  })

  it('fits a 200-character title and a long name on the page, readable', async () => {
    const title =
      'Designing, Building and Operating Dependable Data Warehouses on PostgreSQL: Partitioning, ' +
      'Indexing Strategies, Query Planning, Backup and Recovery, Replication and Monitoring at Scale'
    const longest = `${title} for Teams`.padEnd(200, '!')
    expect(longest).toHaveLength(200)
    const name = 'Maximiliana Wilhelmina Konstantinopoulou-Wolfeschlegelsteinhausenbergerdorff Ó Súilleabháin'
    const { file } = await render({ title: longest, learnerName: name })
    const read = await reading(file)
    expect(read).toContain(longest)
    expect(read).toContain(name)
    await expectInsideFrame(file)
    // a title no one would write, longer than four lines at the smallest size: cut with "…", on the page
    const wide = await render({ title: 'W'.repeat(200) })
    expect(await reading(wide.file)).toMatch(/W{20}…/)
    await expectInsideFrame(wide.file)
    // a name of one unbroken word, longer than a line even at the smallest size, is broken, not cut
    const word = 'W'.repeat(70)
    const broken = await render({ learnerName: word })
    expect((await reading(broken.file)).replace(/ /g, '')).toContain(word)
    await expectInsideFrame(broken.file)
  })

  it('draws the issuer’s signature from a PNG or a JPEG, and issues without one that does not read', async () => {
    const png = await QRCode.toBuffer('signature', { type: 'png' })
    expect(await images((await render()).file)).toBe(1)
    expect(await images((await render({}, png)).file)).toBe(2)

    // a JPEG: a page of a certificate as pdftoppm renders it
    const { file } = await render()
    const photo = path.join(folder, 'signature')
    await run('pdftoppm', ['-jpeg', '-r', '20', '-singlefile', file, photo])
    const jpeg = await readFile(`${photo}.jpg`)
    expect([...jpeg.subarray(0, 3)]).toEqual([0xff, 0xd8, 0xff])
    const withJpeg = await render({}, jpeg)
    expect(await images(withJpeg.file)).toBe(2)
    expect(await reading(withJpeg.file)).toContain('Northwind Data Academy')

    // neither PNG nor JPEG, and a PNG cut short: the certificate is still issued, without the signature
    for (const signature of [
      new TextEncoder().encode('GIF89a not really an image'),
      new Uint8Array(png.subarray(0, 40)),
      new Uint8Array(),
    ]) {
      const { file } = await render({}, signature)
      expect(await images(file)).toBe(1)
      expect(await reading(file)).toContain('Ada Lovelace')
    }
  })
})
