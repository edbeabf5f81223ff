import { mkdtemp, readFile, readdir } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { parse } from 'csv-parse/sync'
import { describe, expect, it } from 'vitest'
import { exportAccessLog, parseDestination } from '#app/modules/access-log/export.server.ts'
import { accessLogReport } from '#app/modules/access-log/service.server.ts'
import { recordProgress } from '#app/modules/progress/service.server.ts'
import { assignCourse, makeAdmin, makeCourse, makeUser } from '#tests/factories.ts'

describe('the access-log export', () => {
  it('writes the report’s rows for a filter to a file, with formula cells neutralised', async () => {
    const learner = await makeUser({ firstName: '=HYPERLINK("http://evil")' })
    const course = await makeCourse({ title: `Export ${Date.now() % 1e6}`, videos: [{ title: '+Sum', duration: 100 }] })
    await assignCourse(learner.id, course.id)
    await recordProgress(learner, {
      courseId: course.id,
      videoId: course.videos[0].id,
      watched: [[0, 20]],
      position: 20,
    })
    const admin = await makeAdmin()
    const dir = await mkdtemp(path.join(os.tmpdir(), 'portal-export-'))
    const target = path.join(dir, 'log.csv')
    const result = await exportAccessLog(admin, { courses: [course.id] }, parseDestination(target))
    expect(result.rows).toBe(1)
    const records = parse(await readFile(target, 'utf8'), { columns: true }) as Record<string, string>[]
    const { rows } = await accessLogReport(admin, { courses: [course.id] })
    expect(records.map((r) => r['Email ID'])).toEqual(rows.map((r) => r.email))
    expect(records[0]['First Name']).toBe('\'=HYPERLINK("http://evil")')
    expect(records[0]['Video title']).toBe("'+Sum")
    expect(await readdir(dir)).toEqual(['log.csv'])
  })
})
