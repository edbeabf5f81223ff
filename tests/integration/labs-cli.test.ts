import { cp, mkdir, mkdtemp, readFile, readdir, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { ROLE } from '#app/modules/auth/roles.ts'
import { closeSandbox } from '#app/modules/labs/sandbox.server.ts'
import { attemptExercise } from '#app/modules/labs/service.server.ts'
import { portal } from '#tests/cli.ts'
import { assignCourse, makeCourse, makeLearner } from '#tests/factories.ts'

// `portal labs …` in a child process, on this test file's database and its sandbox: a lab imported from its
// folder, imported again with one exercise changed, one gone and one new (the attempts of the exercises whose
// key stays are kept), checked (a broken solution is caught, exit 1), listed and exported back as a folder.

afterAll(() => closeSandbox())

const SLOW = { timeout: 180_000 }
const DEMO = path.resolve(import.meta.dirname, '../../db/seeds/labs/sql-fundamentals')

async function labCopy() {
  const dir = path.join(await mkdtemp(path.join(os.tmpdir(), 'portal-labs-')), 'lab')
  await cp(DEMO, dir, { recursive: true })
  return dir
}

const LAB = `title: Small lab
dataset: data.sql
exercises:
  - key: all-cities
    title: Every city
    prompt: List every city's name.
    solution: SELECT name FROM city
  - key: swiss
    title: Swiss cities
    prompt: The Swiss ones.
    solution: SELECT name FROM city WHERE country = 'CH'
    hints:
      - Filter on the country.
      - Its code is CH.
`
const DATA = `CREATE TABLE city (name text, country text);
COPY city FROM 'city.csv' WITH (FORMAT csv, HEADER true);
`

async function smallLab(lab = LAB) {
  const dir = path.join(await mkdtemp(path.join(os.tmpdir(), 'portal-labs-')), 'small')
  await mkdir(dir)
  await writeFile(path.join(dir, 'lab.yaml'), lab)
  await writeFile(path.join(dir, 'data.sql'), DATA)
  await writeFile(path.join(dir, 'city.csv'), 'name,country\nZürich,CH\nBern,CH\nLyon,FR\n')
  return dir
}

describe('portal labs', () => {
  it('checks the demo lab: every solution runs and grading has its answer', SLOW, async () => {
    const checked = await portal(['labs', 'check', await labCopy(), '--json'])
    expect(checked.stderr).toBe('')
    expect(checked.code).toBe(0)
    const report = JSON.parse(checked.stdout) as { ok: boolean; exercises: { key: string; ok: boolean }[] }
    expect(report.ok).toBe(true)
    expect(report.exercises.length).toBeGreaterThanOrEqual(10)
  })

  it('catches a broken solution, names it, and exits 1', SLOW, async () => {
    const dir = await smallLab(LAB.replace("WHERE country = 'CH'", "WHERE cuntry = 'CH'"))
    const checked = await portal(['labs', 'check', dir])
    expect(checked.code).toBe(1)
    expect(checked.stdout).toMatch(/all-cities\s+ok/)
    expect(checked.stderr).toContain(
      'portal: swiss: Exercise swiss: the solution fails: column "cuntry" does not exist',
    )
    expect(checked.stderr).toContain('The lab "Small lab" has 1 problem.')
  })

  it(
    'imports a lab, imports it again keeping the attempts of the exercises that stay, lists and exports it',
    SLOW,
    async () => {
      const course = await makeCourse({ title: 'Labs course' })
      const learner = await makeLearner()
      await assignCourse(learner.id, course.id)
      const dir = await smallLab()

      const first = await portal(['labs', 'import', dir, '--course', 'labs course', '--json'])
      expect(first.code).toBe(0)
      const imported = JSON.parse(first.stdout) as { id: string; created: boolean; exercises: { added: string[] } }
      expect(imported).toMatchObject({ created: true, exercises: { added: ['all-cities', 'swiss'] } })

      const actor = { id: learner.id, roleId: ROLE.learner }
      const wrong = await attemptExercise(actor, {
        labId: imported.id,
        exercise: 'swiss',
        sql: 'SELECT name FROM city',
      })
      expect(wrong).toMatchObject({
        passed: false,
        extraRows: [['Lyon']],
        attempts: 1,
        hints: ['Filter on the country.'],
      })
      const right = await attemptExercise(actor, {
        labId: imported.id,
        exercise: 'swiss',
        sql: "SELECT name FROM city WHERE country = 'CH'",
      })
      expect(right).toMatchObject({ passed: true, attempts: 2 })
      await attemptExercise(actor, { labId: imported.id, exercise: 'all-cities', sql: 'SELECT name FROM city' })

      // the author drops all-cities, changes swiss's prompt and adds french
      const changed = LAB.replace(/ {2}- key: all-cities[\s\S]*?(?= {2}- key: swiss)/, '').replace(
        'The Swiss ones.',
        'The cities of Switzerland.',
      )
      await writeFile(
        path.join(dir, 'lab.yaml'),
        `${changed}  - key: french\n    title: French cities\n    prompt: The French ones.\n    solution: SELECT name FROM city WHERE country = 'FR'\n`,
      )
      const second = await portal(['labs', 'import', dir, '--course', course.id])
      expect(second.code).toBe(0)
      expect(second.stdout).toBe('')
      expect(second.stderr).toMatch(
        /^Updated the lab "Small lab" of Labs course \([0-9a-f-]{36}\): 1 exercises added, 1 kept with their attempts, 1 removed; built in [\d.]+ s\.\n$/,
      )
      // swiss kept its two attempts: the next one is the third
      const third = await attemptExercise(actor, {
        labId: imported.id,
        exercise: 'swiss',
        sql: "SELECT name FROM city WHERE country = 'CH'",
      })
      expect(third).toMatchObject({ passed: true, attempts: 3 })
      await expect(
        attemptExercise(actor, { labId: imported.id, exercise: 'all-cities', sql: 'SELECT name FROM city' }),
      ).rejects.toMatchObject({ status: 404 })

      const listed = await portal(['labs', 'list', '--json'])
      expect(JSON.parse(listed.stdout)).toEqual([
        expect.objectContaining({ id: imported.id, title: 'Small lab', courseTitle: 'Labs course', exercises: 2 }),
      ])

      const out = path.join(await mkdtemp(path.join(os.tmpdir(), 'portal-labs-out-')), 'exported')
      const exported = await portal(['labs', 'export', imported.id, out])
      expect(exported.code).toBe(0)
      expect((await readdir(out)).sort()).toEqual(['city.csv', 'data.sql', 'lab.yaml'])
      expect(await readFile(path.join(out, 'data.sql'), 'utf8')).toBe(DATA)
      const yaml = await readFile(path.join(out, 'lab.yaml'), 'utf8')
      expect(yaml).toContain('The cities of Switzerland.')
      expect(yaml).toContain('key: french')
      expect(yaml).not.toContain('all-cities')
      // and the folder written back imports again as it is
      const again = await portal(['labs', 'check', out, '--json'])
      expect(again.code).toBe(0)
    },
  )

  it('refuses a learner who is not assigned the course, as for videos', SLOW, async () => {
    const course = await makeCourse()
    const outsider = await makeLearner()
    const imported = JSON.parse(
      (await portal(['labs', 'import', await smallLab(), '--course', course.id, '--json'])).stdout,
    ) as { id: string }
    await expect(
      attemptExercise(
        { id: outsider.id, roleId: ROLE.learner },
        { labId: imported.id, exercise: 'swiss', sql: 'SELECT 1' },
      ),
    ).rejects.toMatchObject({ status: 403 })
  })

  it('exits 2 on wrong input and 1 on a folder without lab.yaml', SLOW, async () => {
    const missing = await portal(['labs', 'import', await smallLab()])
    expect(missing.code).toBe(2)
    expect(missing.stderr).toContain("required option '--course <course>' not specified")
    const empty = await mkdtemp(path.join(os.tmpdir(), 'portal-labs-empty-'))
    const none = await portal(['labs', 'check', empty])
    expect(none.code).toBe(1)
    expect(none.stderr).toMatch(/lab\.yaml/)
  })
})
