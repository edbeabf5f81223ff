import { describe, expect, it } from 'vitest'
import { renderComponent } from '#tests/render.tsx'
import { CourseImage } from './course-image.tsx'

/** The course picture as the server renders it: decoration beside the course's title, so with no name. */
async function renderImage(priority?: boolean) {
  const page = await renderComponent(<CourseImage src="/files/sql.png" title="SQL Fundamentals" priority={priority} />)
  return page.getByRole('presentation')
}

describe('CourseImage', () => {
  it('waits until it nears the screen, in a box sized before the file arrives', async () => {
    const image = await renderImage()
    expect(image).toHaveAttribute('src', '/files/sql.png')
    expect(image).toHaveAttribute('loading', 'lazy')
    expect(image).toHaveAttribute('width', '640')
    expect(image).toHaveAttribute('height', '360')
    expect(image).not.toHaveAttribute('fetchpriority')
  })

  it('with priority, is fetched at once and ahead of the rest', async () => {
    const image = await renderImage(true)
    expect(image).toHaveAttribute('fetchpriority', 'high')
    expect(image).not.toHaveAttribute('loading')
    expect(image).toHaveAttribute('width', '640')
  })
})
