import { readFile } from 'node:fs/promises'
import path from 'node:path'

// The demo's files are committed under db/seeds/files/: real PDFs (A4 handouts and scenarios) and PNGs
// (640x360 course and program pictures), so uploads, downloads and type checks behave as in production.
// A course's picture is `<slug>.png`, the program's `<path>.png`; a document keeps the name it is stored under.

export const DEMO_FILES_DIR = path.join(import.meta.dirname, 'files')

/** One of the demo's files, by its name in db/seeds/files/. */
export function demoFile(name: string): Promise<Buffer> {
  return readFile(path.join(DEMO_FILES_DIR, name))
}
