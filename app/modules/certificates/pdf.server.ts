import { createHash } from 'node:crypto'
import { readFile } from 'node:fs/promises'
import { createRequire } from 'node:module'
import path from 'node:path'
import fontkit from '@pdf-lib/fontkit'
import { format } from 'date-fns/format'
import { PageSizes, PDFDocument, type PDFFont, type PDFImage, type PDFPage, rgb } from 'pdf-lib'
import QRCode from 'qrcode'
import { type CertificateFacts, type CertificateKind, groupedCode, hoursText } from './facts.ts'

// The certificate a learner downloads and prints: one A4 landscape page stating the facts, with a QR code
// of the public verify page so anyone holding the paper can check it. The same certificate always renders
// to the same bytes (the dates in the file are the issue date, nothing random), so a certificate downloaded
// twice is the same file.

const COMPLETED: Record<CertificateKind, string> = {
  course: 'has completed the course',
  program: 'has completed the program',
}

const [PAGE_HEIGHT, PAGE_WIDTH] = PageSizes.A4
/** left and right edges of the text: the frame's width less room to breathe */
const TEXT_LEFT = 80
const TEXT_WIDTH = PAGE_WIDTH - 2 * TEXT_LEFT
const INK = rgb(0.12, 0.16, 0.24)
const MUTED = rgb(0.4, 0.44, 0.5)
const ACCENT = rgb(0.15, 0.33, 0.55)

/** the code and the verify address, bottom left, level with the QR code's foot */
const FOOT_LEFT = 56
const QR_SIZE = 110
const QR_X = PAGE_WIDTH - 64 - QR_SIZE
const QR_Y = 66
const SIGNATURE_BOX = { width: 180, height: 60 }
/** the line the issuer signs on; the signature sits on it, the issuer's name below it */
const SIGNATURE_LINE_Y = 150
/** the body (learner, course, date) is centred between the heading and the signature */
const BODY_TOP = 462
const BODY_BOTTOM = SIGNATURE_LINE_Y + SIGNATURE_BOX.height + 14

type Fonts = { regular: Uint8Array; bold: Uint8Array }
let fontFiles: Promise<Fonts> | undefined

/**
 * DejaVu Sans, found through the package (from the sources and from the built server alike) and read
 * once; a failed read is not remembered, so the next certificate tries again.
 */
function loadFonts(): Promise<Fonts> {
  fontFiles ??= (async () => {
    const folder = path.join(
      path.dirname(createRequire(import.meta.url).resolve('dejavu-fonts-ttf/package.json')),
      'ttf',
    )
    const [regular, bold] = await Promise.all([
      readFile(path.join(folder, 'DejaVuSans.ttf')),
      readFile(path.join(folder, 'DejaVuSans-Bold.ttf')),
    ])
    return { regular, bold }
  })().catch((error: unknown) => {
    fontFiles = undefined
    throw error
  })
  return fontFiles
}

const graphemes = new Intl.Segmenter('en', { granularity: 'grapheme' })
const characterSets = new WeakMap<PDFFont, Set<number>>()

/**
 * Text as the font can draw it: composed (NFC, since the PDF does not place a combining accent over its
 * letter), on one line, and every character DejaVu lacks (many emoji, Chinese …) as one "?", so a learner
 * whose name the font cannot spell in full still gets a certificate. A character is what a reader sees as
 * one: an emoji family joined by invisible joiners is one "?", not three.
 */
function drawable(text: string, font: PDFFont): string {
  let known = characterSets.get(font)
  if (!known) characterSets.set(font, (known = new Set(font.getCharacterSet())))
  let out = ''
  for (const { segment } of graphemes.segment(text.normalize('NFC').replace(/\s+/g, ' ').trim())) {
    // joiners and variation selectors draw nothing; the font need not have them
    const visible = segment.replace(/\p{Default_Ignorable_Code_Point}/gu, '')
    out += [...visible].every((char) => known.has(char.codePointAt(0)!)) ? visible : '?'
  }
  return out
}

type Block = { lines: string[]; size: number; font: PDFFont; color: ReturnType<typeof rgb>; leading: number }

const widths = new WeakMap<PDFFont, Map<string, number>>()

/** A text's width at size 1. pdf-lib lays text out anew at every measure, slowly: each word is measured once. */
function unitWidth(font: PDFFont, text: string): number {
  let known = widths.get(font)
  if (!known) widths.set(font, (known = new Map()))
  let width = known.get(text)
  if (width === undefined) known.set(text, (width = font.widthOfTextAtSize(text, 1)))
  return width
}

/** Lines of at most `width` at `size`: word by word, and a word too long for a line by characters. */
function wrap(text: string, font: PDFFont, size: number, width: number): string[] {
  const limit = width / size
  const space = unitWidth(font, ' ')
  const lines: string[] = []
  let line = ''
  let used = 0
  const add = (part: string, partWidth: number) => {
    line += part
    used += partWidth
  }
  const flush = () => {
    if (line) lines.push(line)
    line = ''
    used = 0
  }
  for (const word of text.split(' ')) {
    const wordWidth = unitWidth(font, word)
    if (line && used + space + wordWidth <= limit) {
      add(` ${word}`, space + wordWidth)
      continue
    }
    flush()
    if (wordWidth <= limit) {
      add(word, wordWidth)
      continue
    }
    for (const { segment } of graphemes.segment(word)) {
      const segmentWidth = unitWidth(font, segment)
      if (line && used + segmentWidth > limit) flush()
      add(segment, segmentWidth)
    }
  }
  flush()
  return lines
}

/**
 * A name or title at the largest size that fits: on one line while the size stays above `oneLineFloor`,
 * then on more lines (up to `maxLines`) down to `minSize`. Past that (only a pathological text), the last
 * line ends with "…" rather than leaving the page.
 */
function fit(
  text: string,
  font: PDFFont,
  style: { maxSize: number; minSize: number; oneLineFloor: number; maxLines: number },
): Block {
  const block = (lines: string[], size: number) => ({ lines, size, font, color: INK, leading: 1.2 })
  for (let count = 1; count <= style.maxLines; count++) {
    const floor = count === style.maxLines ? style.minSize : Math.max(style.minSize, style.oneLineFloor)
    for (let size = style.maxSize; size >= floor; size -= 0.5) {
      const lines = wrap(text, font, size, TEXT_WIDTH)
      if (lines.length <= count) return block(lines, size)
    }
  }
  const lines = wrap(text, font, style.minSize, TEXT_WIDTH).slice(0, style.maxLines)
  const last = [...graphemes.segment(lines.pop()!)].map(({ segment }) => segment)
  const limit = TEXT_WIDTH / style.minSize - unitWidth(font, '…')
  while (last.length > 0 && unitWidth(font, last.join('')) > limit) last.pop()
  return block([...lines, `${last.join('')}…`], style.minSize)
}

const height = (block: Block) => block.lines.length * block.size * block.leading

/** Draws the block's lines centred on the page, the first line's top at `top`; returns the bottom. */
function drawCentred(page: PDFPage, block: Block, top: number): number {
  let y = top
  for (const line of block.lines) {
    y -= block.size * block.leading
    const width = block.font.widthOfTextAtSize(line, block.size)
    // the baseline a quarter of the size above the line's bottom: room for DejaVu's descenders
    page.drawText(line, {
      x: (PAGE_WIDTH - width) / 2,
      y: y + block.size * 0.25,
      size: block.size,
      font: block.font,
      color: block.color,
    })
  }
  return y
}

/**
 * The issuer's signature when it is a PNG or a JPEG that reads; undefined otherwise. Uploads are checked
 * when the course's or program's certificate settings are saved, so this is only a fallback: a signature
 * that cannot be drawn must not stop a learner's certificate, which is then issued without it.
 */
async function embedSignature(document: PDFDocument, bytes: Uint8Array | undefined): Promise<PDFImage | undefined> {
  if (!bytes) return undefined
  const starts = (magic: number[]) => magic.every((byte, i) => bytes[i] === byte)
  try {
    if (starts([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return await document.embedPng(bytes)
    if (starts([0xff, 0xd8, 0xff])) return await document.embedJpg(bytes)
  } catch {
    // a corrupt image: drawn without, as above
  }
  return undefined
}

/**
 * A subset font's name: six capitals, a "+" and the font's name, as the PDF standard names subsets so that
 * a viewer never mistakes one certificate's few glyphs for another's. The capitals come from what the
 * certificate says (its glyphs follow from it), so the same certificate names them the same.
 */
function subsetName(font: string, says: unknown): string {
  const hash = createHash('sha256')
    .update(JSON.stringify([font, says]))
    .digest()
  return `${String.fromCharCode(...hash.subarray(0, 6).map((byte) => 65 + (byte % 26)))}+${font}`
}

/** The UTC day of issue as people write it: "27 November 2026". */
const issueDay = (date: Date) =>
  format(new Date(date.getUTCFullYear(), date.getUTCMonth(), date.getUTCDate()), 'd MMMM yyyy')

/** The certificate as a one-page PDF. */
export async function renderCertificatePdf(input: {
  facts: Pick<CertificateFacts, 'code' | 'kind' | 'title' | 'learnerName' | 'issuedAt' | 'minutes' | 'issuerName'>
  verifyUrl: string
  /** the issuer's signature image, PNG or JPEG bytes (sniff which from the bytes), when the course or program has one */
  signature?: Uint8Array
}): Promise<Uint8Array> {
  const { facts, verifyUrl } = input
  const fontBytes = await loadFonts()
  // none of pdf-lib's own metadata, which stamps the time of rendering: the dates below are the moment of issue
  const document = await PDFDocument.create({ updateMetadata: false })
  document.registerFontkit(fontkit)
  const says = [
    facts.code,
    facts.kind,
    facts.title,
    facts.learnerName,
    facts.issuedAt,
    facts.minutes,
    facts.issuerName,
    verifyUrl,
  ]
  const regular = await document.embedFont(fontBytes.regular, {
    subset: true,
    customName: subsetName('DejaVuSans', says),
  })
  const bold = await document.embedFont(fontBytes.bold, {
    subset: true,
    customName: subsetName('DejaVuSans-Bold', says),
  })

  const title = facts.title.normalize('NFC')
  document.setTitle(`Certificate: ${title}`, { showInWindowTitleBar: true })
  document.setAuthor(facts.issuerName.normalize('NFC'))
  document.setSubject(`Certificate of completion for ${facts.learnerName.normalize('NFC')}`)
  document.setCreator('portal')
  document.setProducer('pdf-lib')
  document.setLanguage('en')
  document.setCreationDate(facts.issuedAt)
  document.setModificationDate(facts.issuedAt)

  const page = document.addPage([PAGE_WIDTH, PAGE_HEIGHT])
  page.drawRectangle({
    x: 24,
    y: 24,
    width: PAGE_WIDTH - 48,
    height: PAGE_HEIGHT - 48,
    borderColor: ACCENT,
    borderWidth: 2,
  })
  page.drawRectangle({
    x: 32,
    y: 32,
    width: PAGE_WIDTH - 64,
    height: PAGE_HEIGHT - 64,
    borderColor: ACCENT,
    borderWidth: 0.5,
  })

  const line = (text: string, font: PDFFont, size: number, color = INK): Block => ({
    lines: [drawable(text, font)],
    size,
    font,
    color,
    leading: 1.2,
  })
  drawCentred(page, line('Certificate of completion', bold, 32, ACCENT), 528)

  // learner, course and day as one block, centred in the room the heading and the signature leave
  const gap = 12
  const body = [
    line('This certifies that', regular, 14, MUTED),
    fit(drawable(facts.learnerName, bold), bold, { maxSize: 38, minSize: 14, oneLineFloor: 24, maxLines: 2 }),
    line(COMPLETED[facts.kind], regular, 14, MUTED),
    fit(drawable(facts.title, bold), bold, { maxSize: 24, minSize: 14, oneLineFloor: 18, maxLines: 4 }),
    line(`${issueDay(facts.issuedAt)}  ·  ${hoursText(facts.minutes)}`, regular, 13, MUTED),
  ]
  const bodyHeight = body.reduce((sum, block) => sum + height(block), 0) + gap * (body.length - 1)
  let y = BODY_TOP - Math.max(0, (BODY_TOP - BODY_BOTTOM - bodyHeight) / 2)
  for (const block of body) y = drawCentred(page, block, y) - gap

  // the issuer: the signature on the line, the name below it
  const lineWidth = 220
  const signature = await embedSignature(document, input.signature)
  if (signature) {
    const scale = Math.min(SIGNATURE_BOX.width / signature.width, SIGNATURE_BOX.height / signature.height)
    const width = signature.width * scale
    page.drawImage(signature, {
      x: (PAGE_WIDTH - width) / 2,
      y: SIGNATURE_LINE_Y + 4,
      width,
      height: signature.height * scale,
    })
  }
  page.drawLine({
    start: { x: (PAGE_WIDTH - lineWidth) / 2, y: SIGNATURE_LINE_Y },
    end: { x: (PAGE_WIDTH + lineWidth) / 2, y: SIGNATURE_LINE_Y },
    thickness: 0.75,
    color: MUTED,
  })
  const issuer = fit(drawable(facts.issuerName, bold), bold, { maxSize: 13, minSize: 9, oneLineFloor: 9, maxLines: 2 })
  drawCentred(page, line('Issuer', regular, 9, MUTED), drawCentred(page, issuer, SIGNATURE_LINE_Y - 2))

  // what a reader needs to check the paper: the code, the page that verifies it, and the same as a QR code
  const qr = await document.embedPng(
    await QRCode.toBuffer(verifyUrl, { type: 'png', errorCorrectionLevel: 'M', margin: 2, scale: 8 }),
  )
  page.drawImage(qr, { x: QR_X, y: QR_Y, width: QR_SIZE, height: QR_SIZE })
  const caption = 'Scan to verify'
  page.drawText(caption, {
    x: QR_X + (QR_SIZE - regular.widthOfTextAtSize(caption, 8)) / 2,
    y: QR_Y - 8,
    size: 8,
    font: regular,
    color: MUTED,
  })
  const footWidth = QR_X - 16 - FOOT_LEFT
  page.drawText(`Certificate code ${groupedCode(facts.code)}`, {
    x: FOOT_LEFT,
    y: 76,
    size: 10,
    font: bold,
    color: INK,
  })
  // a long public address wraps rather than shrinking out of legibility; it is never cut, being the address
  wrap(drawable(`Verify at ${verifyUrl}`, regular), regular, 9, footWidth).forEach((text, i) =>
    page.drawText(text, { x: FOOT_LEFT, y: 62 - 11 * i, size: 9, font: regular, color: MUTED }),
  )

  return document.save()
}
