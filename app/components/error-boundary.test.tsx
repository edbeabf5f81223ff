import { json } from '@remix-run/node'
import { describe, expect, it } from 'vitest'
import { renderComponent } from '#tests/render.tsx'
import { GeneralErrorBoundary } from './error-boundary.tsx'

/** The boundary as a page shows it when its loader throws `thrown`. */
const renderThrown = (thrown: unknown) => renderComponent(<GeneralErrorBoundary />, '/contact-Us', { thrown })

describe('GeneralErrorBoundary', () => {
  it("says why a request was refused when the 400 carries the app's message", async () => {
    const page = await renderThrown(json({ message: 'Text cannot contain NUL characters.' }, { status: 400 }))
    expect(page.getByText('Error 400')).toBeInTheDocument()
    expect(page.getByRole('heading', { level: 1, name: 'That request was not understood' })).toBeInTheDocument()
    expect(page.getByText('Text cannot contain NUL characters.')).toBeInTheDocument()
    expect(page.getByText('Check what you entered and try again.')).toBeInTheDocument()
    // a visitor is sent to the public home and offered sign-in
    expect(page.getByRole('link', { name: 'Go to the home page' })).toHaveAttribute('href', '/')
    expect(page.getByRole('link', { name: 'Sign in' })).toHaveAttribute('href', '/sign-in')
  })

  it('keeps its own words for a 400 without one', async () => {
    const page = await renderThrown(json({}, { status: 400 }))
    expect(page.getByRole('heading', { level: 1, name: 'That request was not understood' })).toBeInTheDocument()
    expect(page.getByText('Check what you entered and try again.')).toBeInTheDocument()
  })
})
