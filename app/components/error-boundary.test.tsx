import { json } from '@remix-run/node'
import { renderToString } from 'react-dom/server'
import { createStaticHandler, createStaticRouter, StaticRouterProvider } from 'react-router-dom/server'
import { describe, expect, it } from 'vitest'
import { GeneralErrorBoundary } from './error-boundary.tsx'

const text = (html: string) => html.replace(/<[^>]+>/g, '')

/** The boundary's text as a route shows it when its loader throws `thrown`. */
async function renderThrown(thrown: unknown) {
  const handler = createStaticHandler([
    {
      path: '*',
      loader: () => {
        throw thrown
      },
      element: <p>never</p>,
      errorElement: <GeneralErrorBoundary />,
    },
  ])
  const context = await handler.query(new Request('http://portal.test/contact-Us'))
  if (context instanceof Response) throw new Error('unexpected redirect')
  const router = createStaticRouter(handler.dataRoutes, context)
  return text(renderToString(<StaticRouterProvider router={router} context={context} hydrate={false} />))
}

describe('GeneralErrorBoundary', () => {
  it("says why a request was refused when the 400 carries the app's message", async () => {
    const html = await renderThrown(json({ message: 'Text cannot contain NUL characters.' }, { status: 400 }))
    expect(html).toContain('Error 400')
    expect(html).toContain('Text cannot contain NUL characters.')
  })

  it('keeps its own words for a 400 without one', async () => {
    const html = await renderThrown(json({}, { status: 400 }))
    expect(html).toContain('Check what you entered and try again.')
  })
})
