import { describe, expect, it } from 'vitest'
import { SYSTEM } from '#app/modules/auth/roles.ts'
import { getCourseDetail } from '#app/modules/courses/admin.server.ts'
import { getCourseOverview, listCatalogue } from '#app/modules/courses/catalogue.server.ts'
import { courseProgress } from '#app/modules/progress/rules.server.ts'
import { makeAdmin, makeCourse, makeLearner } from '#tests/factories.ts'

// A course's duration is one rule, written in SQL (courses/duration.server.ts): every page and /api call
// that shows it (the catalogue, the course overview, the admin's course page, My Courses) gives the same
// answer in every case.

const CASES = [
  { name: 'no videos', videos: [], duration: null },
  { name: 'every visible video timed', videos: [{ duration: 100 }, { duration: 25 }], duration: 125 },
  { name: 'a visible video without a duration', videos: [{ duration: 100 }, { duration: null }], duration: null },
  { name: 'a visible video of 0 seconds', videos: [{ duration: 100 }, { duration: 0 }], duration: null },
  {
    name: 'a hidden video without a duration',
    videos: [{ duration: 100 }, { duration: null, visibility: false }, { duration: 40, visibility: false }],
    duration: 100,
  },
  { name: 'only hidden videos', videos: [{ duration: 50, visibility: false }], duration: null },
]

describe('a course’s duration', () => {
  it.each(CASES)(
    'is the same on the catalogue, the course pages and My Courses: $name',
    async ({ videos, duration }) => {
      const title = `Duration ${Math.random().toString(36).slice(2)}`
      const course = await makeCourse({ title, videos })
      const { rows } = await listCatalogue(SYSTEM, { q: title })
      expect(rows.map((r) => r.duration)).toEqual([duration])
      expect((await getCourseOverview(course.id)).duration).toBe(duration)
      expect((await getCourseDetail(await makeAdmin(), course.id)).duration).toBe(duration)
      expect((await courseProgress((await makeLearner()).id, course.id)).duration).toBe(duration)
    },
  )
})
