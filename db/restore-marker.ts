import { QueryTypes, type Sequelize, type Transaction } from 'sequelize'
import { DatabaseStartError } from './embedded.ts'

// A restore in progress leaves a marker table in the database it fills, from the moment the archive's schema
// is there until the last step is done. Every process that opens the database migrates it first, and a
// migration refuses a marked database: nothing serves, schedules or backs up half a restore.

export const MARKER_TABLE = 'portal_restore_marker'

type RestoreMarker = { archive: string; archiveSha256: string; startedAt: Date; stage: string }

export class IncompleteRestoreError extends DatabaseStartError {
  override name = 'IncompleteRestoreError'
  constructor(marker: RestoreMarker) {
    super(
      `This database holds an incomplete restore of ${marker.archive} (started ${marker.startedAt.toISOString()}, ` +
        `stopped after "${marker.stage}"); run \`portal restore\` with that archive again to finish it, or with ` +
        `--force to set it aside.`,
    )
  }
}

/** The marker of an unfinished restore, if the database has one. */
export async function restoreMarker(
  sequelize: Sequelize,
  transaction?: Transaction,
): Promise<RestoreMarker | undefined> {
  const [{ found }] = await sequelize.query<{ found: boolean }>(
    `SELECT to_regclass('${MARKER_TABLE}') IS NOT NULL AS found`,
    { type: QueryTypes.SELECT, transaction },
  )
  if (!found) return undefined
  const [row] = await sequelize.query<{ archive: string; archive_sha256: string; started_at: Date; stage: string }>(
    `SELECT archive, archive_sha256, started_at, stage FROM ${MARKER_TABLE} LIMIT 1`,
    { type: QueryTypes.SELECT, transaction },
  )
  // a marker table without its row was made by a restore killed right then: still unfinished
  return row
    ? { archive: row.archive, archiveSha256: row.archive_sha256, startedAt: row.started_at, stage: row.stage }
    : { archive: 'an archive', archiveSha256: '', startedAt: new Date(0), stage: 'schema' }
}
