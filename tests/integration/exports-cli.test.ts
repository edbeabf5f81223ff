import { mkdtemp, readdir, rmdir, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { portal, scheduleAddArgs } from '#tests/cli.ts'
import { makeCourse } from '#tests/factories.ts'
import { startWorkers, stopWorkers, tuneQueue } from '#tests/jobs.ts'

// `portal exports …` in a child process, on this test file's database (DATABASE_URL); the runs it queues
// are run by workers in the test's process.

afterEach(() => stopWorkers())

// each command is a child process starting Node and tsx: a test of several needs more than the default time
const SLOW = { timeout: 180_000 }

const folder = async () => `${await mkdtemp(path.join(os.tmpdir(), 'portal-cli-exports-'))}/`

describe('portal exports schedule', () => {
  it('adds, lists as JSON and removes a schedule, with exit codes scripts can rely on', SLOW, async () => {
    const course = await makeCourse()
    const dir = await folder()
    const add = (...extra: string[]) =>
      portal([...scheduleAddArgs({ name: 'nightly', cron: '0 2 * * *', range: 'yesterday', to: dir }), ...extra])

    const added = await add('--course', course.id, '--tz', 'Europe/Berlin', '--format', 'jsonl')
    expect(added).toMatchObject({ code: 0, stdout: '' })
    expect(added.stderr).toMatch(/^Added schedule nightly: 0 2 \* \* \* \(Europe\/Berlin\), yesterday to /)

    const listed = await portal(['exports', 'schedule', 'list', '--json'])
    expect(listed.code).toBe(0)
    expect(JSON.parse(listed.stdout)).toMatchObject([
      {
        name: 'nightly',
        cron: '0 2 * * *',
        timeZone: 'Europe/Berlin',
        range: 'yesterday',
        courses: [course.id],
        format: 'jsonl',
        destination: dir,
      },
    ])

    const duplicate = await add()
    expect(duplicate.code).toBe(1)
    expect(duplicate.stderr).toContain('portal: A schedule named nightly already exists.')

    const wrong = await portal([
      'exports',
      'schedule',
      'add',
      '--name',
      'bad',
      '--cron',
      '0 25 * * *',
      '--range',
      'fortnight',
      '--to',
      'relative/',
    ])
    expect(wrong.code).toBe(2)
    expect(wrong.stderr).toMatch(/portal: --cron: Cron "0 25 \* \* \*" is not a valid schedule/)
    expect(wrong.stderr).toContain(
      'portal: --range: Range must be one of yesterday, last-7-days, last-month, month-to-date.',
    )
    expect(wrong.stderr).toContain('portal: --to: A folder destination must be an absolute path')

    const missing = await portal(['exports', 'schedule', 'add', '--name', 'half'])
    expect(missing).toMatchObject({ code: 2, stderr: expect.stringContaining('missing --cron, --range, --to') })

    expect(await portal(['exports', 'schedule', 'remove', 'nightly'])).toMatchObject({
      code: 0,
      stderr: 'Removed schedule nightly.\n',
    })
    const again = await portal(['exports', 'schedule', 'remove', 'nightly'])
    expect(again).toMatchObject({ code: 1, stderr: 'portal: There is no schedule named nightly.\n' })
    expect(JSON.parse((await portal(['exports', 'schedule', 'list', '--json'])).stdout)).toEqual([])
  })
})

describe('portal exports schedule add, checked before it is kept', () => {
  const add = (...extra: string[]) =>
    portal(['exports', 'schedule', 'add', '--name', 'checked', '--cron', '0 2 * * *', '--range', 'yesterday', ...extra])

  it('refuses a folder that is not there (or is a file) in one line, exit 2, and keeps nothing', SLOW, async () => {
    const missing = path.join(await folder(), 'not-made-yet/')
    expect(await add('--to', missing)).toMatchObject({
      code: 2,
      stdout: '',
      stderr: `portal: The folder ${missing} does not exist.\n`,
    })
    const file = path.join(await folder(), 'a-file')
    await writeFile(file, '')
    expect(await add('--to', `${file}/`)).toMatchObject({
      code: 2,
      stderr: `portal: The folder ${file}/ does not exist.\n`,
    })
    expect(JSON.parse((await portal(['exports', 'schedule', 'list', '--json'])).stdout)).toEqual([])
  })

  it('takes --course by id or exact title, as portal export access-log does', SLOW, async () => {
    const byTitle = await makeCourse({ title: 'Slowly Changing Dimensions' })
    const byId = await makeCourse()
    const dir = await folder()
    const added = await add('--to', dir, '--course', 'slowly changing dimensions', '--course', byId.id, '--json')
    expect(added.code).toBe(0)
    expect(JSON.parse(added.stdout)).toMatchObject({ name: 'checked', courses: [byTitle.id, byId.id] })

    const unknown = await add('--to', dir, '--course', 'No Such Course')
    expect(unknown).toMatchObject({ code: 2, stderr: 'portal: No course with the id or title "No Such Course".\n' })
    const removed = await portal(['exports', 'schedule', 'remove', 'checked', '--json'])
    expect(removed).toMatchObject({ code: 0, stderr: 'Removed schedule checked.\n' })
    expect(JSON.parse(removed.stdout)).toEqual({ name: 'checked' })
  })
})

describe('portal exports run and history', () => {
  it('runs by hand through a worker, waits, and tells a failure by its exit code', SLOW, async () => {
    // one try only, so that a failed run has failed for good at once
    await tuneQueue('export-run', { retryLimit: 0 })
    await startWorkers(['export-run'])
    const dir = await folder()
    const course = await makeCourse()
    const add = (name: string, to: string) =>
      portal([
        'exports',
        'schedule',
        'add',
        '--name',
        name,
        '--cron',
        '0 2 * * *',
        '--range',
        'last-7-days',
        '--course',
        course.id,
        '--to',
        to,
      ])
    expect((await add('weekly', dir)).code).toBe(0)
    // a folder that was there when the schedule was added and is gone by the time it runs
    const gone = await folder()
    expect((await add('broken', gone)).code).toBe(0)
    await rmdir(gone)

    const run = await portal(['exports', 'run', 'weekly'])
    expect(run.code).toBe(0)
    const [file] = await readdir(dir)
    expect(file).toMatch(/^weekly_\d{4}-\d{2}-\d{2}_\d{4}-\d{2}-\d{2}\.csv$/)
    expect(run.stdout).toBe(`${path.join(dir, file)}\n`)
    expect(run.stderr).toMatch(/^weekly: 0 rows \(\d+ bytes\) to /)

    const failed = await portal(['exports', 'run', 'broken'])
    expect(failed).toMatchObject({ code: 1, stdout: '' })
    expect(failed.stderr).toBe(`portal: broken: failed: The folder ${gone.slice(0, -1)} does not exist.\n`)
    expect((await portal(['exports', 'run', 'nothing'])).code).toBe(1)

    // queued without waiting: the run's id (its job's) on stdout, or the run as JSON
    await stopWorkers()
    const queued = await portal(['exports', 'run', 'weekly', '--no-wait'])
    expect(queued.code).toBe(0)
    expect(queued.stdout).toMatch(/^[0-9a-f-]{36}\n$/)
    expect(queued.stderr).toBe(`Queued run ${queued.stdout.trim()} of weekly.\n`)
    const asJson = await portal(['exports', 'run', 'weekly', '--no-wait', '--json'])
    expect(JSON.parse(asJson.stdout)).toMatchObject({ scheduleName: 'weekly', status: 'queued', trigger: 'manual' })

    const history = await portal(['exports', 'history', '--json', '--limit', '3'])
    expect(history.code).toBe(0)
    const latest = JSON.parse(history.stdout) as { scheduleName: string; status: string }[]
    expect(latest.map((r) => [r.scheduleName, r.status])).toEqual([
      ['weekly', 'queued'],
      ['weekly', 'queued'],
      ['broken', 'failed'],
    ])

    const table = await portal(['exports', 'history'])
    expect(table.stdout.split('\n')[0]).toMatch(
      /^STARTED\s+SCHEDULE\s+TRIGGER\s+STATUS\s+ROWS\s+BYTES\s+LOCATION OR ERROR$/,
    )
    expect(table.stdout.split('\n').filter(Boolean)).toHaveLength(5) // the header and four runs

    expect(await portal(['exports', 'history', '--limit', '0'])).toMatchObject({
      code: 2,
      stderr: 'portal: --limit: Limit must be at least 1.\n',
    })
  })
})
