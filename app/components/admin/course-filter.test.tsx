import { renderToString } from 'react-dom/server'
import { describe, expect, it } from 'vitest'
import { parsePage } from '#tests/render.tsx'
import { CourseFilter, CourseListbox } from './course-filter.tsx'

const courses = [
  { _id: 'c1', title: 'SQL Fundamentals' },
  { _id: 'c2', title: 'Data Modelling' },
  { _id: 'c3', title: 'Building ETL Pipelines' },
]

/** The values a browser would post from this markup: hidden inputs and checked boxes, by name. */
function posted(html: string) {
  return [...html.matchAll(/<input ([^>]*)\/?>/g)]
    .map((m) => m[1]!)
    .filter((attrs) => /type="hidden"/.test(attrs) || / checked=""/.test(attrs))
    .map((attrs) => [/name="([^"]*)"/.exec(attrs)?.[1], /value="([^"]*)"/.exec(attrs)?.[1]])
}

describe('CourseFilter', () => {
  it('renders a labelled checkbox per course on the server, the chosen ones checked, posting course=<id> each', () => {
    const html = renderToString(
      <CourseFilter name="course" label="Courses" courses={courses} defaultValue={['c1', 'c3']} />,
    )
    expect(html).toContain('Courses</legend>')
    expect(html.match(/type="checkbox"/g)).toHaveLength(3)
    expect(html).toMatch(
      /<label[^>]*><input type="checkbox" name="course"[^>]*value="c2"[^>]*\/>Data Modelling<\/label>/,
    )
    expect(posted(html)).toEqual([
      ['course', 'c1'],
      ['course', 'c3'],
    ])
    expect(html).not.toContain('multiple')
  })
})

describe('CourseListbox (after hydration)', () => {
  it('is a labelled listbox button that posts the same course=<id> fields, not Headless UI’s course[0]', () => {
    const html = renderToString(
      <CourseListbox name="course" label="Courses" courses={courses} defaultValue={['c1', 'c3']} />,
    )
    expect(html).toMatch(/aria-haspopup="listbox"/)
    expect(html).toContain('2 courses')
    expect(posted(html)).toEqual([
      ['course', 'c1'],
      ['course', 'c3'],
    ])
    expect(html).not.toContain('course[0]')
    expect(html).not.toContain('type="checkbox"')

    const none = renderToString(<CourseListbox name="course" label="Courses" courses={courses} defaultValue={[]} />)
    expect(none).toContain('Every course')
    expect(posted(none)).toEqual([])
  })
})

describe('a refused choice', () => {
  // the Listbox's descriptions are wired by Headless UI once hydrated (its Field), not in the server's HTML
  it('is described on the checkboxes the server renders', () => {
    const plain = parsePage(
      renderToString(
        <CourseFilter
          name="course"
          label="Courses"
          courses={courses}
          defaultValue={[]}
          errors={['There is no course c9.']}
        />,
      ),
    )
    expect(plain.getByRole('group', { name: 'Courses' })).toHaveAccessibleDescription(
      'None chosen means every course. There is no course c9.',
    )
  })
})
