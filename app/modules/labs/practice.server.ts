import { select } from '#db/client.ts'
import type { Actor } from '../auth/roles.ts'
import { notFound } from '../errors.ts'
import type { PracticeDataset } from './practice.ts'
import { practiceDataset } from './sandbox.server.ts'
import { getLab } from './service.server.ts'

// The practice dataset a learner's browser loads into PGlite: the lab's statements and the CSV files they copy from,
// made from what the portal keeps of the lab (its dataset SQL and files). Its version is a digest of exactly those,
// so a re-import that changes the dataset gives a new address, and one that changes nothing keeps the browser's copy.

/**
 * Changes whenever the form of what is sent changes (how statements are split or rewritten), so browsers holding
 * the old form fetch the new one.
 */
const PRACTICE_FORMAT = 'statements-1'

/** The digest of a lab's dataset SQL and files, as the practice dataset's version; undefined for no such lab. */
export async function practiceVersion(labId: string): Promise<string | undefined> {
  const [row] = await select<{ version: string }>(
    `SELECT md5($2 || E'\\n' || l.dataset_name || E'\\n' || l.dataset_sql || E'\\n' || coalesce(
              (SELECT string_agg(f.name || ' ' || md5(f.content), E'\\n' ORDER BY f.name)
                 FROM lab_files f WHERE f.lab_id = l.id), '')) AS version
       FROM labs l WHERE l.id = $1`,
    [labId, PRACTICE_FORMAT],
  )
  return row?.version
}

/**
 * A lab's practice dataset, for whoever may open the lab's page (the same refusals: a course not assigned is 403,
 * a hidden or unknown lab, or a lab of another course, is 404), with its version.
 */
export async function getPracticeDataset(
  actor: Actor,
  courseId: string,
  labId: string,
): Promise<{ version: string; dataset: PracticeDataset }> {
  const lab = await getLab(actor, labId)
  if (lab.courseId !== courseId) throw notFound('No such lab.')
  const [row] = await select<{ dataset_name: string; dataset_sql: string }>(
    'SELECT dataset_name, dataset_sql FROM labs WHERE id = $1',
    [labId],
  )
  const version = await practiceVersion(labId)
  if (!row || version === undefined) throw notFound('No such lab.')
  const files = await select<{ name: string; content: Buffer }>(
    'SELECT name, content FROM lab_files WHERE lab_id = $1 ORDER BY name',
    [labId],
  )
  const dataset = await practiceDataset({ sql: row.dataset_sql, name: row.dataset_name, files })
  return { version, dataset }
}
