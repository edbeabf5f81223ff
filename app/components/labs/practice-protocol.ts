import type { PracticeDataset } from '#app/modules/labs/practice.ts'

// What the lab page and its practice worker say to each other. The worker holds one PGlite with the lab's dataset;
// the page asks it to open (from the dataset's statements or from a dump of an earlier load), to run SQL, and to
// open again for Reset.

/** Where the worker fetches PostgreSQL itself: the built, content-named files (app/modules/labs/practice-assets). */
export type PracticeFiles = { pgliteWasm: string; initdbWasm: string; fsBundle: string }

/** The steps of opening, as the page shows its progress. */
export const OPEN_STEPS = ['Downloading PostgreSQL', 'Loading the lab’s data'] as const

export type ToWorker =
  /** start downloading and compiling PostgreSQL while the page looks for the dataset */
  | { type: 'prepare'; files: PracticeFiles }
  | { type: 'open'; files: PracticeFiles; dataset?: PracticeDataset; dump?: Blob }
  | { type: 'run'; id: number; sql: string }

export type RunOutcome =
  | { ok: true; statements: number; columns: string[]; rows: (string | null)[][]; ms: number }
  | { ok: false; message: string; position?: number }

export type FromWorker =
  | { type: 'step'; step: number }
  | { type: 'ready'; ms: number }
  /** after a load from the statements is ready: its dump, kept for the next visit and for Reset */
  | { type: 'kept'; dump: Blob }
  | { type: 'failed'; message: string }
  | { type: 'ran'; id: number; outcome: RunOutcome }
