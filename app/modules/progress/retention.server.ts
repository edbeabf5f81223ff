import { z } from 'zod'
import { query, sql } from '#db/client.ts'
import { requirePermission } from '../auth/permissions.ts'
import { type Actor } from '../auth/roles.ts'

// Page pings (postAccessLog) are appended for every open page and nothing reads old ones: who was
// active on a day is kept in learner_activity, and viewing in video_viewings. The table would only
// grow, so operators keep a retention window and prune what is older, in batches that never hold a
// long lock (`portal db prune-pings --older-than 180d`).

const BATCH = 10_000

const PruneSchema = z.object({
  olderThanDays: z.coerce
    .number({ invalid_type_error: 'The age must be a number of days.' })
    .int('The age must be a whole number of days.')
    .min(1, 'Keep at least one day of pings.')
    .max(36_500, 'The age must be at most 36500 days.'),
  dryRun: z.boolean().default(false),
})

const CUTOFF = sql('SELECT now() - make_interval(days => :days) AS before')
const COUNT_OLDER = sql('SELECT count(*) AS count FROM access_log_pings WHERE recorded_at < :before')
const DELETE_OLDER = sql(
  `WITH gone AS (
     DELETE FROM access_log_pings WHERE id IN (
       SELECT id FROM access_log_pings WHERE recorded_at < :before ORDER BY recorded_at LIMIT :batch)
     RETURNING 1)
   SELECT count(*)::int AS count FROM gone`,
)

/** Delete the pings recorded more than `olderThanDays` days ago; answers how many went (or would go). */
export async function prunePings(
  actor: Actor,
  input: z.input<typeof PruneSchema>,
  onProgress?: (deleted: number) => void,
): Promise<{ deleted: number; before: string }> {
  requirePermission(actor, 'prune:access-log')
  const { olderThanDays, dryRun } = PruneSchema.parse(input)
  const [{ before }] = await query<{ before: Date }>(CUTOFF, { days: olderThanDays })
  if (dryRun) {
    const [{ count }] = await query<{ count: string }>(COUNT_OLDER, { before })
    return { deleted: Number(count), before: before.toISOString() }
  }
  let deleted = 0
  for (;;) {
    const [{ count }] = await query<{ count: number }>(DELETE_OLDER, { before, batch: BATCH })
    deleted += count
    onProgress?.(deleted)
    if (count < BATCH) break
  }
  return { deleted, before: before.toISOString() }
}
