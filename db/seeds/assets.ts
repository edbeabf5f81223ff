import { constants } from 'node:zlib'
import { PDFDocument, StandardFonts, rgb, type PDFFont, type PDFPage } from 'pdf-lib'
import { PNG } from 'pngjs'
import { PRODUCT_NAME } from '#app/utils/brand.ts'

// Demo files are drawn at seed time rather than checked in: the repository stays free of binaries
// and the files are real PDFs and PNGs, so uploads, downloads and type checks behave as in production.

/** One block of a demo PDF. Text must stay within WinAnsi (the standard fonts' encoding). */
export type PdfBlock = { heading: string } | { paragraph: string } | { bullets: string[] } | { code: string[] }

export type PdfSpec = { title: string; subtitle: string; blocks: PdfBlock[] }

const A4 = { width: 595.28, height: 841.89 }
const MARGIN = 56
const TEXT_WIDTH = A4.width - 2 * MARGIN
const INK = rgb(0.12, 0.16, 0.22)
const MUTED = rgb(0.4, 0.45, 0.52)
const ACCENT = rgb(0.11, 0.34, 0.72)
const CODE_BACKGROUND = rgb(0.94, 0.95, 0.97)

type Fonts = { regular: PDFFont; bold: PDFFont; mono: PDFFont }

/** A small A4 handout: title, subtitle, then headings, paragraphs, bullet lists and code, paged as needed. */
export async function renderPdf(spec: PdfSpec): Promise<Buffer> {
  const pdf = await PDFDocument.create()
  pdf.setTitle(spec.title)
  pdf.setSubject(spec.subtitle)
  pdf.setAuthor(PRODUCT_NAME)
  pdf.setCreator(`${PRODUCT_NAME} demo content`)
  const fonts: Fonts = {
    regular: await pdf.embedFont(StandardFonts.Helvetica),
    bold: await pdf.embedFont(StandardFonts.HelveticaBold),
    mono: await pdf.embedFont(StandardFonts.Courier),
  }

  let page = pdf.addPage([A4.width, A4.height])
  let y = A4.height - MARGIN
  // Moves to a new page when the next `height` points would run into the bottom margin.
  const room = (height: number) => {
    if (y - height >= MARGIN + 20) return
    page = pdf.addPage([A4.width, A4.height])
    y = A4.height - MARGIN
  }

  for (const line of wrap(spec.title, fonts.bold, 20, TEXT_WIDTH)) {
    page.drawText(line, { x: MARGIN, y: y - 20, size: 20, font: fonts.bold, color: INK })
    y -= 26
  }
  for (const line of wrap(spec.subtitle, fonts.regular, 11, TEXT_WIDTH)) {
    page.drawText(line, { x: MARGIN, y: y - 12, size: 11, font: fonts.regular, color: MUTED })
    y -= 15
  }
  y -= 6
  page.drawLine({ start: { x: MARGIN, y }, end: { x: A4.width - MARGIN, y }, thickness: 1.5, color: ACCENT })
  y -= 14

  for (const block of spec.blocks) {
    if ('heading' in block) {
      // keep a heading with at least two lines of what follows it
      room(16 + 30)
      y -= 8
      page.drawText(block.heading, { x: MARGIN, y: y - 12, size: 12.5, font: fonts.bold, color: ACCENT })
      y -= 20
    } else if ('paragraph' in block) {
      for (const line of wrap(block.paragraph, fonts.regular, 10.5, TEXT_WIDTH)) {
        room(15)
        page.drawText(line, { x: MARGIN, y: y - 11, size: 10.5, font: fonts.regular, color: INK })
        y -= 15
      }
      y -= 6
    } else if ('bullets' in block) {
      for (const item of block.bullets) {
        wrap(item, fonts.regular, 10.5, TEXT_WIDTH - 16).forEach((line, index) => {
          room(15)
          if (index === 0)
            page.drawText('\u2022', { x: MARGIN + 3, y: y - 11, size: 10.5, font: fonts.regular, color: ACCENT })
          page.drawText(line, { x: MARGIN + 16, y: y - 11, size: 10.5, font: fonts.regular, color: INK })
          y -= 15
        })
        y -= 2
      }
      y -= 4
    } else {
      const lineHeight = 12
      const height = block.code.length * lineHeight + 12
      room(Math.min(height, A4.height - 2 * MARGIN - 20))
      drawCodeBox(page, y, height)
      y -= 6
      for (const line of block.code) {
        if (y - lineHeight < MARGIN + 20) {
          page = pdf.addPage([A4.width, A4.height])
          y = A4.height - MARGIN
        }
        page.drawText(line, { x: MARGIN + 8, y: y - 9.5, size: 9, font: fonts.mono, color: INK })
        y -= lineHeight
      }
      y -= 16
    }
  }

  const pages = pdf.getPages()
  pages.forEach((p, index) => {
    const footer = `${PRODUCT_NAME} - ${spec.title} - page ${index + 1} of ${pages.length}`
    p.drawText(footer, { x: MARGIN, y: MARGIN - 24, size: 8, font: fonts.regular, color: MUTED })
  })
  return Buffer.from(await pdf.save())
}

function drawCodeBox(page: PDFPage, top: number, height: number) {
  const visible = Math.min(height, top - MARGIN - 20)
  page.drawRectangle({ x: MARGIN, y: top - visible, width: TEXT_WIDTH, height: visible, color: CODE_BACKGROUND })
}

function wrap(text: string, font: PDFFont, size: number, width: number): string[] {
  const lines: string[] = []
  let line = ''
  for (const word of text.split(/\s+/).filter(Boolean)) {
    const candidate = line ? `${line} ${word}` : word
    if (line && font.widthOfTextAtSize(candidate, size) > width) {
      lines.push(line)
      line = word
    } else {
      line = candidate
    }
  }
  if (line) lines.push(line)
  return lines
}

/** How a course or program picture is drawn: two colours for the background and a motif on top. */
export type ImageStyle = {
  from: [number, number, number]
  to: [number, number, number]
  motif: 'grid' | 'network' | 'flow' | 'bars' | 'rings'
}

type Rgb = [number, number, number]

/**
 * A 640x360 picture: a diagonal gradient with a light geometric motif that hints at the subject
 * (a table grid for SQL, linked entities for modelling, arrows for ETL, a bar chart for warehousing).
 */
export function renderCoverPng(style: ImageStyle, width = 640, height = 360): Buffer {
  const png = new PNG({ width, height })
  const coverage = motifCoverage(style.motif, width, height)
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const t = (x / width) * 0.65 + (y / height) * 0.35
      const base: Rgb = [0, 1, 2].map((i) => style.from[i] + (style.to[i] - style.from[i]) * t) as Rgb
      const alpha = coverage(x + 0.5, y + 0.5) * 0.55
      const offset = (y * width + x) * 4
      for (let i = 0; i < 3; i++) png.data[offset + i] = Math.round(base[i] + (255 - base[i]) * alpha)
      png.data[offset + 3] = 255
    }
  }
  // The same picture in a third of the bytes: zlib's default strategy (pngjs's own default, run-length
  // only, compresses a gradient poorly) and no alpha channel, which would only carry 255s.
  return PNG.sync.write(png, { colorType: 2, deflateStrategy: constants.Z_DEFAULT_STRATEGY })
}

/** 0..1: how much of the pixel at (x, y) the motif covers, with a one-pixel soft edge. */
function motifCoverage(motif: ImageStyle['motif'], width: number, height: number): (x: number, y: number) => number {
  const edge = (distance: number) => Math.max(0, Math.min(1, 0.5 - distance))
  switch (motif) {
    case 'grid': {
      // a result table: a header band and ruled rows and columns
      const left = width * 0.3
      const right = width * 0.9
      const top = height * 0.18
      const bottom = height * 0.82
      const columns = 4
      const rows = 6
      return (x, y) => {
        if (x < left || x > right || y < top || y > bottom) return 0
        const header = y < top + (bottom - top) / rows ? 0.45 : 0
        const cellW = (right - left) / columns
        const cellH = (bottom - top) / rows
        const dx = Math.abs(((x - left + cellW / 2) % cellW) - cellW / 2)
        const dy = Math.abs(((y - top + cellH / 2) % cellH) - cellH / 2)
        return Math.max(header, edge(Math.min(dx, dy) - 1), 0.08)
      }
    }
    case 'network': {
      // entities as circles joined by relationship lines
      const nodes: [number, number][] = [
        [0.28, 0.3],
        [0.52, 0.62],
        [0.78, 0.32],
        [0.7, 0.78],
        [0.33, 0.78],
      ].map(([nx, ny]) => [nx * width, ny * height])
      const links: [number, number][] = [
        [0, 1],
        [1, 2],
        [1, 3],
        [1, 4],
        [0, 2],
      ]
      const radius = height * 0.09
      return (x, y) => {
        let cover = 0
        let inside = false
        for (const [cx, cy] of nodes) {
          const d = Math.hypot(x - cx, y - cy)
          inside ||= d < radius
          cover = Math.max(cover, d < radius ? 0.6 : 0, edge(Math.abs(d - radius) - 1.5))
        }
        if (inside) return cover
        for (const [a, b] of links) cover = Math.max(cover, edge(segmentDistance(x, y, nodes[a], nodes[b]) - 1.5))
        return cover
      }
    }
    case 'flow': {
      // chevrons moving left to right, as data through a pipeline
      const pitch = width / 7
      return (x, y) => {
        const band = Math.abs(y - height / 2)
        if (band > height * 0.28) return 0
        const phase = (x + band * 0.9) % pitch
        return edge(Math.abs(phase - pitch / 2) - pitch * 0.12)
      }
    }
    case 'bars': {
      // a bar chart on a baseline: the reports a warehouse exists for
      const heights = [0.3, 0.45, 0.38, 0.6, 0.52, 0.72, 0.66]
      const left = width * 0.28
      const barW = width * 0.06
      const gap = width * 0.03
      const base = height * 0.85
      return (x, y) => {
        if (Math.abs(y - base) < 1.5 && x > left - gap && x < left + heights.length * (barW + gap)) return 1
        const index = Math.floor((x - left) / (barW + gap))
        if (index < 0 || index >= heights.length || (x - left) % (barW + gap) > barW) return 0
        return y < base && y > base - heights[index] * height ? 0.6 : 0
      }
    }
    case 'rings': {
      // concentric rings: courses that build on one another
      const cx = width * 0.68
      const cy = height * 0.5
      const step = height * 0.09
      return (x, y) => {
        const d = Math.hypot(x - cx, y - cy)
        if (d < step / 2 || d > step * 5.2) return 0
        return edge(Math.abs(((d + step / 2) % step) - step / 2) - 2)
      }
    }
  }
}

function segmentDistance(x: number, y: number, [ax, ay]: [number, number], [bx, by]: [number, number]) {
  const dx = bx - ax
  const dy = by - ay
  const t = Math.max(0, Math.min(1, ((x - ax) * dx + (y - ay) * dy) / (dx * dx + dy * dy)))
  return Math.hypot(x - (ax + t * dx), y - (ay + t * dy))
}
