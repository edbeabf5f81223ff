import { renderToString } from 'react-dom/server'
import { describe, expect, it } from 'vitest'
import { EmptyState } from './empty-state.tsx'
import { Spinner } from './spinner.tsx'

describe('Spinner', () => {
  it('is a status with a screen-reader label, or pure decoration without one', () => {
    const labelled = renderToString(<Spinner label="Please wait" />)
    expect(labelled).toMatch(/^<span role="status"/)
    expect(labelled).toContain('<span class="sr-only">Please wait</span>')
    expect(labelled).toContain('aria-hidden="true"')

    const decorative = renderToString(<Spinner label={null} />)
    expect(decorative).not.toContain('role="status"')
    expect(decorative).not.toContain('sr-only')
  })
})

describe('EmptyState', () => {
  it('shows the title and only the parts it is given', () => {
    expect(renderToString(<EmptyState title="No Documents found" />)).toMatch(
      /^<div[^>]*><p[^>]*>No Documents found<\/p><\/div>$/,
    )
    const full = renderToString(
      <EmptyState title="No Data Found" text="Try another search." action={<a href="/x">Clear</a>} />,
    )
    expect(full).toContain('Try another search.')
    expect(full).toContain('<a href="/x">Clear</a>')
  })
})
