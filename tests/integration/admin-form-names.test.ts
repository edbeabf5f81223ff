import { within } from '@testing-library/dom'
import { beforeAll, describe, expect, it } from 'vitest'
import * as addDocumentsPage from '#app/routes/admin+/addDocuments.tsx'
import * as addScenariosPage from '#app/routes/admin+/addScenarios.tsx'
import * as coursePage from '#app/routes/admin+/course.$courseId.tsx'
import * as newCoursePage from '#app/routes/admin+/newCourse.tsx'
import * as newVideoPage from '#app/routes/admin+/newVideo.tsx'
import { makeAdmin, makeCourse, makeDocument } from '#tests/factories.ts'
import { renderRoute, type RouteModule } from '#tests/render.tsx'
import { sessionCookieFor } from '#tests/sessions.ts'

// The admin's add forms and the course page's dialogs as the server renders them (before any
// JavaScript): each form is named by its heading, each control it holds by its label, and the course
// page's headings go down one level at a time.

let cookie: string
let course: Awaited<ReturnType<typeof makeCourse>>
let documentId: string

beforeAll(async () => {
  cookie = await sessionCookieFor((await makeAdmin()).userName)
  course = await makeCourse({ title: 'Named Forms', videos: [{ title: 'First Steps' }, { title: 'Next Steps' }] })
  documentId = (await makeDocument(course.id, { name: 'notes.pdf' })).id
})

/** Every control in the form a person can reach, with its role and accessible name, in order. */
function expectNamedControls(form: HTMLElement, names: [role: string, name: string | RegExp][]) {
  // found in the form: the page may hold another control of the same name (the reminders switch's On)
  for (const [role, name] of names) expect(within(form).getByRole(role, { name })).toBeInTheDocument()
  // and nothing in it goes without a name: a control with none is found by no label
  for (const control of form.querySelectorAll('input:not([type=hidden]), select, textarea')) {
    const id = control.getAttribute('id')
    const labelled = control.closest('label') ?? (id ? form.ownerDocument.querySelector(`label[for="${id}"]`) : null)
    expect(labelled?.textContent?.trim() || control.getAttribute('aria-label'), control.outerHTML).toBeTruthy()
  }
}

describe('the admin add forms', () => {
  it('are forms named by their page heading, with a label on each control', async () => {
    const pages = [
      [
        newCoursePage,
        '/admin/newCourse',
        'Add New Course',
        [
          ['textbox', 'Course Title'],
          ['textbox', 'Description'],
        ],
      ],
      [
        newVideoPage,
        `/admin/newVideo?courseId=${course.id}`,
        'Add New Video',
        [
          ['combobox', 'Video Related Course'],
          ['textbox', 'Video Title'],
          ['textbox', 'Duration (mm:ss or h:mm:ss)'],
          ['checkbox', 'First Steps'],
        ],
      ],
      [addDocumentsPage, `/admin/addDocuments?courseId=${course.id}`, 'Add Documents', [['combobox', 'Course']]],
      [addScenariosPage, `/admin/addScenarios?courseId=${course.id}`, 'Add Scenarios', [['combobox', 'Course']]],
    ] as const
    for (const [route, path, heading, controls] of pages) {
      const page = await renderRoute(route as RouteModule, path, { cookie })
      expect(page.getByRole('heading', { level: 1, name: heading }), path).toBeInTheDocument()
      const form = page.getByRole('form', { name: heading })
      expectNamedControls(form, controls as unknown as [string, string][])
      expect(form).toContainElement(page.getByRole('button', { name: 'Save' }))
    }
  })
})

describe('the admin course page', () => {
  const render = (query: string) =>
    renderRoute(coursePage as RouteModule, `/admin/course/${course.id}?${query}`, {
      cookie,
      pattern: '/admin/course/:courseId',
    })

  it('goes from its h1 to an h2 for its certificates, its reminders and each video, skipping no level', async () => {
    const page = await render('tab=videos')
    const levels = page.getAllByRole('heading').map((h) => Number(h.tagName.slice(1)))
    expect(levels[0]).toBe(1)
    for (const [index, level] of levels.entries())
      if (index > 0) expect(level).toBeLessThanOrEqual(levels[index - 1] + 1)
    expect(page.getAllByRole('heading', { level: 2 }).map((h) => h.textContent)).toEqual([
      'Certificates',
      'Reminders',
      '1. First Steps',
      '2. Next Steps',
    ])
  })

  it('names each dialog’s form by the dialog’s title, with a label on each control', async () => {
    const video = course.videos[0]
    for (const [query, title, controls] of [
      [
        'tab=videos&edit=course',
        'Edit Course Details',
        [
          ['textbox', 'Course Name'],
          ['textbox', 'Description'],
        ],
      ],
      [
        `tab=videos&edit=${video.id}`,
        'Edit video',
        [
          ['textbox', 'Video Title'],
          ['checkbox', 'Next Steps'],
        ],
      ],
      [`tab=documents&edit=${documentId}`, 'Edit document', [['spinbutton', 'Order Id']]],
      [
        'tab=videos&edit=certificates',
        'Certificate settings',
        [
          ['radio', 'On'],
          ['textbox', 'Issuer’s name'],
          ['checkbox', 'Also issue certificates to learners who already completed this course'],
        ],
      ],
      [`tab=videos&delete=${video.id}`, 'Delete video', [['button', 'Delete']]],
    ] as const) {
      const page = await render(query)
      const form = page.getByRole('form', { name: title })
      expectNamedControls(form, controls as unknown as [string, string][])
    }
  })
})
