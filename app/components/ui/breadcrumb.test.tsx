import { type ReactNode } from 'react'
import { renderToString } from 'react-dom/server'
import { createStaticHandler, createStaticRouter, StaticRouterProvider } from 'react-router-dom/server'
import { describe, expect, it } from 'vitest'
import { Breadcrumb } from './breadcrumb.tsx'
import { FormFooter } from './form-footer.tsx'

async function render(element: ReactNode) {
  const handler = createStaticHandler([{ path: '*', element }])
  const context = await handler.query(new Request('http://portal.test/admin/newVideo'))
  if (context instanceof Response) throw new Error('unexpected redirect')
  const router = createStaticRouter(handler.dataRoutes, context)
  return renderToString(<StaticRouterProvider router={router} context={context} hydrate={false} />)
}

const text = (html: string) =>
  html
    .replace(/<[^>]+>/g, '')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')

describe('Breadcrumb', () => {
  it('links the steps back and marks the last, unlinked, as the current page', async () => {
    const html = await render(
      <Breadcrumb
        items={[
          { label: 'Courses', to: '/admin/courses' },
          { label: 'SQL <Basics>', to: '/admin/course/c1' },
          { label: 'Add New Video' },
        ]}
      />,
    )
    expect(text(html)).toBe('Courses / SQL <Basics> / Add New Video')
    expect([...html.matchAll(/href="([^"]+)"/g)].map((m) => m[1])).toEqual(['/admin/courses', '/admin/course/c1'])
    expect(html).toMatch(/<span aria-current="page"[^>]*>Add New Video<\/span>/)
    expect(html).toContain('aria-label="Breadcrumb"')
  })
})

describe('FormFooter', () => {
  it('names the form error for Conform, and keeps Save disabled while saving or uploading', async () => {
    const idle = await render(
      <FormFooter errorId="f-error" error="Try again" saving={false} cancelTo="/admin/courses" />,
    )
    expect(idle).toMatch(/<p id="f-error" role="alert"[^>]*>Try again<\/p>/)
    expect(idle).toMatch(/<button type="submit"[^>]*>Save<\/button>/)
    expect(idle).not.toMatch(/<button[^>]*disabled/)
    expect(idle).toMatch(/<a[^>]*href="\/admin\/courses"[^>]*>Cancel<\/a>/)

    const uploading = await render(<FormFooter errorId="f-error" saving={false} busy />)
    expect(uploading).toMatch(/<button type="submit"[^>]*disabled=""[^>]*>Save<\/button>/)
    expect(uploading).not.toContain('Cancel')

    const saving = await render(<FormFooter errorId="f-error" saving />)
    expect(saving).toMatch(/<button type="submit"[^>]*disabled=""[^>]*>Saving…<\/button>/)
  })
})
