import { describe, expect, it } from 'vitest'
import { postedBy, renderComponent } from '#tests/render.tsx'
import { CourseFilter, CourseListbox, type CourseFilterProps } from './course-filter.tsx'

const courses = [
  { _id: 'c1', title: 'SQL Fundamentals' },
  { _id: 'c2', title: 'Data Modelling' },
  { _id: 'c3', title: 'Building ETL Pipelines' },
]

/** `Choice` (the server's checkboxes or the hydrated Listbox) in a filter form, as the server renders it. */
const renderChoice = (Choice: typeof CourseFilter, props: Partial<CourseFilterProps> = {}) =>
  renderComponent(
    <form aria-label="Filter">
      <Choice name="course" label="Courses" courses={courses} defaultValue={['c1', 'c3']} {...props} />
    </form>,
  )

describe('CourseFilter', () => {
  it('renders a labelled checkbox per course on the server, the chosen ones checked, posting course=<id> each', async () => {
    const page = await renderChoice(CourseFilter)
    const group = page.getByRole('group', { name: 'Courses' })
    const boxes = page.getAllByRole('checkbox')
    expect(boxes.map((box) => group.contains(box))).toEqual([true, true, true])
    expect(page.getByRole('checkbox', { name: 'SQL Fundamentals' })).toBeChecked()
    expect(page.getByRole('checkbox', { name: 'Data Modelling' })).not.toBeChecked()
    expect(page.getByRole('checkbox', { name: 'Data Modelling' })).toHaveAttribute('value', 'c2')
    expect(page.getByRole('checkbox', { name: 'Building ETL Pipelines' })).toBeChecked()
    expect(postedBy(page.getByRole('form', { name: 'Filter' }))).toEqual([
      ['course', 'c1'],
      ['course', 'c3'],
    ])
    expect(page.queryByRole('listbox')).toBeNull()
  })
})

describe('CourseListbox (after hydration)', () => {
  it('is a labelled listbox button that posts the same course=<id> fields, not Headless UI’s course[0]', async () => {
    const page = await renderChoice(CourseListbox)
    const button = page.getByRole('button', { name: 'Courses' })
    expect(button).toHaveAttribute('aria-haspopup', 'listbox')
    expect(button).toHaveTextContent(/^2 courses$/)
    expect(postedBy(page.getByRole('form', { name: 'Filter' }))).toEqual([
      ['course', 'c1'],
      ['course', 'c3'],
    ])
    expect(page.queryAllByRole('checkbox')).toEqual([])

    const none = await renderChoice(CourseListbox, { defaultValue: [] })
    expect(none.getByRole('button', { name: 'Courses' })).toHaveTextContent(/^Every course$/)
    expect(postedBy(none.getByRole('form', { name: 'Filter' }))).toEqual([])
  })
})

describe('a refused choice', () => {
  // the Listbox's descriptions are wired by Headless UI once hydrated (its Field), not in the server's HTML
  it('is described on the checkboxes the server renders', async () => {
    const page = await renderChoice(CourseFilter, { defaultValue: [], errors: ['There is no course c9.'] })
    expect(page.getByRole('group', { name: 'Courses' })).toHaveAccessibleDescription(
      'None chosen means every course. There is no course c9.',
    )
  })
})
