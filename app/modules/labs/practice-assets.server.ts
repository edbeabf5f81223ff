import { readFileSync } from 'node:fs'
import path from 'node:path'
import { practiceVersion } from './practice.server.ts'

// What a lab page needs to start practice in the browser: the practice worker and PGlite's files, under the names
// the build gave them (server/build-practice.js writes their manifest), and the versioned address of the lab's
// dataset. Without the files (a build made by `remix build` alone) the page says practice is not available.

/** The built practice files' addresses, as the worker is started and fetches PostgreSQL. */
const PRACTICE_FILES = ['worker', 'pgliteWasm', 'fsBundle', 'cluster'] as const
type PracticeManifest = Record<(typeof PRACTICE_FILES)[number], string>

const MANIFEST = path.join('public', 'build', 'practice', 'manifest.json')

let manifest: PracticeManifest | undefined

function readManifest(): PracticeManifest | undefined {
  try {
    // read once: a build replaces the files only with a restart of the server
    manifest ??= JSON.parse(readFileSync(MANIFEST, 'utf8')) as PracticeManifest
    // a manifest from an older build that lacks a file the worker now needs is no build at all
    return PRACTICE_FILES.every((key) => typeof manifest?.[key] === 'string') ? manifest : undefined
  } catch {
    return undefined
  }
}

/**
 * A lab page's practice: where the worker and PostgreSQL's files are, and the dataset's versioned address; null
 * when the files are not built. Undefined for a lab with nothing to practise: two-session exercises have no Run, so
 * a lab of them alone loads no PostgreSQL.
 */
export async function labPractice(courseId: string, lab: { id: string; exercises: { check: string }[] }) {
  if (!lab.exercises.some((exercise) => exercise.check !== 'sessions')) return undefined
  const files = readManifest()
  const version = await practiceVersion(lab.id)
  if (!files || version === undefined) return null
  const { worker, ...postgres } = files
  return { worker, files: postgres, dataset: `/course/${courseId}/lab/${lab.id}/practice?v=${version}`, version }
}
