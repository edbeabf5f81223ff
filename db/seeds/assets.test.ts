import { readdir } from 'node:fs/promises'
import { fileTypeFromBuffer } from 'file-type'
import { describe, expect, it } from 'vitest'
import { DEMO_FILES_DIR, demoFile } from './assets.ts'
import { DEMO_COURSES, DEMO_PROGRAM } from './demo-content.ts'

const pictures = [...DEMO_COURSES.map((c) => `${c.slug}.png`), `${DEMO_PROGRAM.path}.png`]
const documents = DEMO_COURSES.flatMap((c) => c.files.map((f) => f.fileName))

describe('the demo files', () => {
  it('are every picture and document the demo stores, and nothing else', async () => {
    expect((await readdir(DEMO_FILES_DIR)).sort()).toEqual([...pictures, ...documents].sort())
  })

  it.each(pictures)('%s is a 640x360 opaque PNG, light enough for a first page load', async (name) => {
    const file = await demoFile(name)
    expect(await fileTypeFromBuffer(file)).toMatchObject({ mime: 'image/png' })
    // IHDR: width and height, then bit depth 8 and colour type 2 (RGB; 6 would carry an alpha byte per pixel)
    expect([file.readUInt32BE(16), file.readUInt32BE(20), file[24], file[25]]).toEqual([640, 360, 8, 2])
    expect(file.length).toBeLessThan(45_000)
  })

  it.each(documents)('%s is a small PDF', async (name) => {
    const file = await demoFile(name)
    expect(await fileTypeFromBuffer(file)).toMatchObject({ mime: 'application/pdf' })
    expect(file.subarray(-6).toString('latin1')).toMatch(/%%EOF\s*$/)
    expect(file.length).toBeLessThan(8_000)
  })
})
