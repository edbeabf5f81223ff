import type { PracticeDataset } from '#app/modules/labs/practice.ts'

// What the lab page and its practice worker say to each other. The worker holds one PGlite with the lab's dataset;
// the page asks it to open (from the dataset's statements or from a dump of an earlier load), to run SQL, and to
// open again for Reset.

/**
 * Where the worker fetches PostgreSQL itself, the built, content-named files (server/build-practice.js): its
 * WebAssembly, its file-system image, and the empty cluster initdb made at build time.
 */
export type PracticeFiles = { pgliteWasm: string; fsBundle: string; cluster: string }

/** The steps of opening, as the page shows its progress. */
export const OPEN_STEPS = ['Downloading PostgreSQL', 'Loading the lab’s data'] as const

export type ToWorker =
  /**
   * start downloading and compiling PostgreSQL while the page looks for the dataset; `fresh`: there is no copy of an
   * earlier load, so fetch the empty cluster the dataset will be loaded into too
   */
  | { type: 'prepare'; files: PracticeFiles; fresh?: boolean }
  | { type: 'open'; files: PracticeFiles; dataset?: PracticeDataset; dump?: Blob }
  | { type: 'run'; id: number; sql: string }

export type RunOutcome =
  | { ok: true; statements: number; columns: string[]; rows: (string | null)[][]; ms: number }
  | { ok: false; message: string; position?: number }

export type FromWorker =
  | { type: 'step'; step: number }
  /** `steps`: what opening did and when each step ended, in wall-clock milliseconds */
  | { type: 'ready'; ms: number; steps: [string, number][] }
  /** after a load from the statements is ready: its dump, kept for the next visit and for Reset */
  | { type: 'kept'; dump: Blob }
  | { type: 'failed'; message: string }
  | { type: 'ran'; id: number; outcome: RunOutcome }
