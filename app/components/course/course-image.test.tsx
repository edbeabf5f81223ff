import { renderToString } from 'react-dom/server'
import { describe, expect, it } from 'vitest'
import { CourseImage } from './course-image.tsx'

describe('CourseImage', () => {
  it('waits until it nears the screen, in a box sized before the file arrives', () => {
    const html = renderToString(<CourseImage src="/files/sql.png" title="SQL Fundamentals" />)
    expect(html).toContain('loading="lazy"')
    expect(html).toContain('width="640"')
    expect(html).toContain('height="360"')
    expect(html).not.toContain('fetchpriority')
  })

  it('with priority, is fetched at once and ahead of the rest', () => {
    const html = renderToString(<CourseImage src="/files/sql.png" title="SQL Fundamentals" priority />)
    expect(html).toContain('fetchpriority="high"')
    expect(html).not.toContain('loading=')
    expect(html).toContain('width="640"')
  })
})
