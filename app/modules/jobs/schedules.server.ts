import { mkdir } from 'node:fs/promises'
import path from 'node:path'
import { QueryTypes, UniqueConstraintError, type Transaction } from 'sequelize'
import type { ZodType, ZodTypeDef } from 'zod'
import { getEnv } from '#app/utils/env.server.ts'
import { sequelize, transaction as inTransaction } from '#db/client.ts'
import { requirePermission } from '../auth/permissions.ts'
import { SYSTEM, type Actor } from '../auth/roles.ts'
import { conflict, invalid, isServiceError, notFound } from '../errors.ts'
import { allowedS3Targets, refusedFromAdminArea, requireWritableFolder } from '../files/destinations.server.ts'
import { isUuid } from '../ids.ts'
import { enqueueJob } from './connection.server.ts'
import { cronOf, latestSlot } from './cron-slots.ts'
import type { JobHandler } from './job.ts'
import { RunHistorySchema } from './schedule-schema.ts'

// The schedules of a job, kept alike for every area that has them (scheduled exports, scheduled backups):
// the schedules in `<job>_schedules`, their runs in `<job>_runs`; each run is a job of the queue `<job>-run`
// (the job's id the run's) that a worker runs, and a job of the queue `<job>-look`, once a minute, claims
// each schedule's latest due slot exactly once (the slot rule of cron-slots.ts, with UNIQUE (schedule_id,
// slot)). What a run does, and what its rows hold beyond these columns, is the area's own.

/** The columns every schedule has, whatever its job. */
export type ScheduleColumns = {
  id: string
  name: string
  cron: string
  time_zone: string
  destination: string
  created_at: Date
  created_by: string | null
}

export type RunStatus = 'queued' | 'running' | 'succeeded' | 'failed'

/** The columns every run has, whatever its job. */
export type RunColumns = {
  id: string
  schedule_id: string | null
  schedule_name: string
  trigger: 'schedule' | 'manual'
  slot: Date | null
  started_at: Date
  finished_at: Date | null
  status: RunStatus
}

export async function select<T extends object>(text: string, bind: unknown[] = [], transaction?: Transaction) {
  const sql = await sequelize()
  return sql.query<T>(text, { bind, type: QueryTypes.SELECT, transaction })
}

export const iso = (d: Date | null) => (d ? new Date(d).toISOString() : null)

/** A schedule as its page, the CLI and /api show it: the common fields around the area's `own`. */
function scheduleView<E extends object>(row: ScheduleColumns, own: E, now: Date) {
  return {
    id: row.id,
    name: row.name,
    cron: row.cron,
    timeZone: row.time_zone,
    ...own,
    createdAt: new Date(row.created_at).toISOString(),
    createdBy: row.created_by,
    /** the next slot after now, in UTC */
    nextRun: iso(cronOf(row).nextRun(now)),
  }
}

/** A run as its page, the CLI and /api show it: the common fields, then the area's `own`. */
function runView<E extends object>(row: RunColumns, own: E) {
  return {
    id: row.id,
    scheduleId: row.schedule_id,
    scheduleName: row.schedule_name,
    trigger: row.trigger,
    slot: iso(row.slot),
    startedAt: new Date(row.started_at).toISOString(),
    finishedAt: iso(row.finished_at),
    status: row.status,
    ...own,
  }
}

/**
 * What an area tells of its schedules: the schedule it parses (S), its rows (Row, Run), and the fields of its
 * own their views show (ES, ER).
 */
type Area<
  S extends { name: string; destination: string },
  Row extends ScheduleColumns,
  Run extends RunColumns,
  ES,
  ER,
> = {
  /**
   * The tables `<job>_schedules` and `<job>_runs`, the queues `<job>-run` and `<job>-look`, the permissions
   * `read:<job>s` and `manage:<job>s`, the folder `$DATA_DIR/<job>s/`, the S3 prefixes `<JOB>_S3_TARGETS`.
   */
  job: 'export' | 'backup'
  /** the run columns its views read */
  runColumns: string
  /** how its messages name a schedule and a run: `backup schedule`, `backup run` */
  words: { schedule: string; run: string }
  schema: ZodType<S, ZodTypeDef, unknown>
  /** refuses what the area's own data says cannot be scheduled (a course that is not there) */
  check?: (schedule: S) => Promise<void>
  /** a new schedule's columns, in their order, and the type each is cast to where the bound value needs one */
  columns: (schedule: S) => Record<string, unknown>
  casts?: Record<string, string>
  /** a schedule's own fields, as its view shows them between its time zone and when it was made */
  scheduleFields: (row: Row) => ES
  /** a run's own fields, as its view shows them after its status */
  runFields: (row: Run) => ER
}

/** The operations on the schedules of one area's job, for its service to offer under its own names. */
export function scheduledJob<
  S extends { name: string; destination: string },
  Row extends ScheduleColumns,
  Run extends RunColumns,
  ES extends object,
  ER extends object,
>(area: Area<S, Row, Run, ES, ER>) {
  type SV = ReturnType<typeof scheduleView<ES>>
  type RV = ReturnType<typeof runView<ER>>
  const toSchedule = (row: Row, now: Date): SV => scheduleView(row, area.scheduleFields(row), now)
  const toRun = (row: Run): RV => runView(row, area.runFields(row))
  const { job, words } = area
  const what = `${job}s` as const
  const runs = `${job}_runs`
  const schedules = `${job}_schedules`
  const queue = `${job}-run` as const
  const requireManager = (actor: Actor) => requirePermission(actor, `manage:${what}`)
  const requireReader = (actor: Actor) => requirePermission(actor, `read:${what}`)

  /** The folder the admin area may write into: `$DATA_DIR/<job>s/`. */
  const folder = () => `${path.resolve(getEnv().DATA_DIR, what)}/`

  /**
   * The S3 prefixes the admin area may write to: those the operator listed in <JOB>_S3_TARGETS, less any in
   * the bucket that holds the portal's uploads. None when the operator listed none.
   */
  const s3Targets = (): string[] =>
    allowedS3Targets(getEnv()[job === 'backup' ? 'BACKUP_S3_TARGETS' : 'EXPORT_S3_TARGETS'])
  const noSchedule = (name: string) => notFound(`There is no ${words.schedule} named ${name}.`)

  /**
   * Why the admin area may not write to this destination, or undefined. A web account must not make the
   * server write where the operator did not choose: a folder inside `folder()`, an S3 prefix under one of
   * `s3Targets()`, never the uploads bucket (refusedFromAdminArea). The CLI (an operator with shell access,
   * acting as the system) may name any absolute folder or prefix.
   */
  const destinationRefused = (actor: Actor, destination: string) =>
    actor.id === SYSTEM.id
      ? undefined
      : refusedFromAdminArea(destination, { what, root: folder(), targets: s3Targets() })

  async function add(actor: Actor, input: unknown): Promise<SV> {
    requireManager(actor)
    const schedule = area.schema.parse(input)
    const refused = destinationRefused(actor, schedule.destination)
    if (refused) throw invalid(refused, { destination: refused })
    // a folder must be there and writable now, not found missing at the first run hours later; the admin
    // area's own folder (inside $DATA_DIR) is made for it
    if (!schedule.destination.startsWith('s3://')) {
      if (actor.id !== SYSTEM.id) await mkdir(schedule.destination, { recursive: true })
      await requireWritableFolder(schedule.destination).catch((error: unknown) => {
        if (!isServiceError(error)) throw error
        throw invalid(error.message, { destination: error.message })
      })
    }
    await area.check?.(schedule)
    const values = { ...area.columns(schedule), created_by: actor.id }
    const columns = Object.keys(values)
    const params = columns.map((column, i) => `$${i + 1}${area.casts?.[column] ?? ''}`)
    try {
      const [row] = await select<Row>(
        `INSERT INTO ${schedules} (${columns.join(', ')}) VALUES (${params.join(', ')}) RETURNING *`,
        Object.values(values),
      )
      return toSchedule(row, new Date())
    } catch (error) {
      if (error instanceof UniqueConstraintError) {
        const message = `A ${words.schedule} named ${schedule.name} already exists.`
        throw conflict(message, { name: message })
      }
      throw error
    }
  }

  async function list(actor: Actor, now = new Date()): Promise<SV[]> {
    requireReader(actor)
    const rows = await select<Row>(`SELECT * FROM ${schedules} ORDER BY name`)
    return rows.map((row) => toSchedule(row, now))
  }

  async function remove(actor: Actor, name: string): Promise<{ name: string }> {
    requireManager(actor)
    const [row] = await select<{ name: string }>(`DELETE FROM ${schedules} WHERE name = $1 RETURNING name`, [
      String(name ?? '').trim(),
    ])
    if (!row) throw noSchedule(name)
    return row
  }

  /** The latest runs, newest first. */
  async function listRuns(actor: Actor, input: unknown = {}): Promise<RV[]> {
    requireReader(actor)
    const { limit } = RunHistorySchema.parse(input)
    const rows = await select<Run>(`SELECT ${area.runColumns} FROM ${runs} ORDER BY started_at DESC, id LIMIT $1`, [
      limit,
    ])
    return rows.map(toRun)
  }

  /** A run as it is now (the CLI follows a run it queued). */
  async function findRun(actor: Actor, id: string): Promise<RV> {
    requireReader(actor)
    const gone = notFound(`There is no such ${words.run}.`)
    if (!isUuid(id)) throw gone
    const [row] = await select<Run>(`SELECT ${area.runColumns} FROM ${runs} WHERE id = $1`, [id])
    if (!row) throw gone
    return toRun(row)
  }

  /**
   * Run a schedule now, outside its slots: a manual run, queued for a worker like the scheduled ones, started
   * when it was asked (`startedAt`). Answers the run as it is queued.
   */
  async function runNow(actor: Actor, name: string, startedAt = new Date()): Promise<RV> {
    requireManager(actor)
    const [schedule] = await select<Row>(`SELECT * FROM ${schedules} WHERE name = $1`, [String(name ?? '').trim()])
    if (!schedule) throw noSchedule(name)
    return inTransaction(async (transaction) => {
      const [run] = await select<Run>(
        `INSERT INTO ${runs} (schedule_id, schedule_name, trigger, started_at)
         VALUES ($1, $2, 'manual', $3) RETURNING ${area.runColumns}`,
        [schedule.id, schedule.name, startedAt],
        transaction,
      )
      await enqueueJob(queue, run.id, transaction)
      return toRun(run)
    })
  }

  /**
   * Write the run that stands for a schedule's slot, with its job, unless that slot (or a later one) has one
   * already: the new run's id for the one caller that wins, undefined for every other. Two callers whose
   * statements overlap cannot both win: the second insert waits on the first's row under UNIQUE (schedule_id,
   * slot), then does nothing. `transaction` is for tests that hold a claim open.
   */
  async function claimSlot(scheduleId: string, slot: Date, transaction?: Transaction): Promise<string | undefined> {
    const claim = async (transaction: Transaction) => {
      const [claimed] = await select<{ id: string }>(
        `INSERT INTO ${runs} (schedule_id, schedule_name, trigger, slot)
         SELECT s.id, s.name, 'schedule', $2::timestamptz FROM ${schedules} s
          WHERE s.id = $1
            AND NOT EXISTS (SELECT 1 FROM ${runs} r WHERE r.schedule_id = s.id AND r.slot >= $2::timestamptz)
         ON CONFLICT (schedule_id, slot) DO NOTHING
         RETURNING id`,
        [scheduleId, slot],
        transaction,
      )
      if (claimed) await enqueueJob(queue, claimed.id, transaction)
      return claimed?.id
    }
    return transaction ? claim(transaction) : inTransaction(claim)
  }

  /**
   * Queue a run of every schedule whose latest slot at or before `now` has not been claimed yet, once, and
   * return those runs. Safe to call from several processes at once: each slot is claimed by one.
   */
  async function claimDue(now = new Date()): Promise<RV[]> {
    const rows = await select<Row>(`SELECT * FROM ${schedules} ORDER BY name`)
    const claimed: RV[] = []
    for (const schedule of rows) {
      const slot = latestSlot(schedule, now)
      if (!slot) continue
      // a slot no newer than the last scheduled run is done (or was skipped over); otherwise claim it
      const id = await claimSlot(schedule.id, slot)
      if (id) claimed.push(await findRun(SYSTEM, id))
    }
    return claimed
  }

  /**
   * Mark a run running for a try of its job, clearing what an earlier try left (`clear`, as SET items), and
   * read its schedule: undefined when the run ended meanwhile (cancelled), no schedule when it was removed.
   */
  async function startRun(id: string, clear: string): Promise<{ run: Run; schedule?: Row } | undefined> {
    const [run] = await select<Run>(
      `UPDATE ${runs} SET status = 'running', ${clear}
        WHERE id = $1 AND status IN ('queued', 'running') RETURNING ${area.runColumns}`,
      [id],
    )
    if (!run) return undefined
    const [schedule] = await select<Row>(`SELECT * FROM ${schedules} WHERE id = $1`, [run.schedule_id])
    return { run, schedule }
  }

  /** A failed try that is tried again: the run waits, queued, with why the try failed. */
  async function requeue(id: string, sets: string, bind: unknown[]) {
    await select(`UPDATE ${runs} SET status = 'queued', ${sets} WHERE id = $1 AND status = 'running' RETURNING id`, [
      id,
      ...bind,
    ])
  }

  /** The jobs of the queue `<job>-run`: the area's own, and an operator's retry of a failed run. */
  const runJobs = (handler: Required<Omit<JobHandler, 'reopened'>>): JobHandler => ({
    ...handler,
    async reopened(id) {
      await select(
        `UPDATE ${runs} SET status = 'queued', finished_at = NULL WHERE id = $1 AND status = 'failed' RETURNING id`,
        [id],
      )
    },
  })

  /** The jobs of the queue `<job>-look`: one a minute, claiming what is due. */
  const lookJobs: JobHandler = {
    async run() {
      await claimDue(new Date())
    },
  }

  return {
    schema: area.schema,
    requireReader,
    folder,
    s3Targets,
    add,
    list,
    remove,
    listRuns,
    findRun,
    runNow,
    claimSlot,
    claimDue,
    startRun,
    requeue,
    runJobs,
    lookJobs,
  }
}
