import { PNG } from 'pngjs'
import { describe, expect, it } from 'vitest'
import { renderCoverPng } from './assets.ts'

describe('renderCoverPng', () => {
  it('draws a 640x360 opaque PNG, compressed as a picture shown first on a phone should be', () => {
    const file = renderCoverPng({ from: [70, 30, 110], to: [150, 70, 170], motif: 'network' })
    const png = PNG.sync.read(file)
    expect([png.width, png.height]).toEqual([640, 360])
    // IHDR's colour type: 2 is RGB, 6 would carry an alpha byte for every pixel
    expect(file[25]).toBe(2)
    // about 22 KB; run-length compression alone made 73 KB of it
    expect(file.length).toBeLessThan(30_000)
  })
})
