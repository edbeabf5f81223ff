import { type ReactNode } from 'react'
import { renderToString } from 'react-dom/server'
// Remix 2 is built on this router and renders pages on the server the same way.
import { createStaticHandler, createStaticRouter, StaticRouterProvider } from 'react-router-dom/server'
import { describe, expect, it } from 'vitest'
import { DataTable, type DataTableColumn, type DataTableProps } from './data-table.tsx'

type User = { id: string; name: string; email: string }

const columns: DataTableColumn<User>[] = [
  { id: 'name', header: 'Name', cell: (u) => u.name, sortKey: 'name' },
  { id: 'email', header: 'Email', cell: (u) => u.email, sortKey: 'email' },
  { id: 'role', header: 'Role', cell: () => 'Learner' },
]

const users: User[] = [
  { id: 'u1', name: 'Ann Lee', email: 'ann@example.com' },
  { id: 'u2', name: 'Bo <Tan>', email: 'bo@example.com' },
]

/** Server-renders `element` as the page at `url`. */
async function renderAt(url: string, element: ReactNode) {
  const handler = createStaticHandler([{ path: '*', element }])
  const context = await handler.query(new Request(new URL(url, 'http://portal.test')))
  if (context instanceof Response) throw new Error('unexpected redirect')
  const router = createStaticRouter(handler.dataRoutes, context)
  return renderToString(<StaticRouterProvider router={router} context={context} hydrate={false} />)
}

/** Server-renders the table of `users` (or of the given rows) as the page at `url`. */
const renderTable = (
  url: string,
  props: Omit<DataTableProps<User>, 'columns' | 'rows' | 'getRowKey'> & { rows?: User[] },
) => renderAt(url, <DataTable columns={columns} rows={users} getRowKey={(u) => u.id} {...props} />)

/** The decoded hrefs of all links in the markup. */
function hrefs(html: string) {
  return [...html.matchAll(/<a [^>]*href="([^"]*)"/g)].map((m) => m[1].replaceAll('&amp;', '&'))
}

describe('DataTable', () => {
  it('renders the headers, the rows and a link per row', async () => {
    const html = await renderTable('/admin/users', {
      label: 'Users List',
      rowHref: (u) => `/admin/user/${u.id}`,
      total: 2,
      page: 1,
      pageSize: 7,
      sort: 'name',
      dir: 'asc',
    })
    expect(html).toContain('<caption class="sr-only">Users List</caption>')
    // the table scrolls sideways in a named box that a keyboard can reach, not the whole page
    expect(html).toMatch(
      /<div role="region" aria-label="Users List" tabindex="0" class="relative overflow-x-auto[^"]*"><table/,
    )
    expect(html).toMatch(/<th scope="col" aria-sort="ascending"[^>]*>.*Name/)
    expect(html).not.toMatch(/aria-sort="[a-z]+"[^>]*>(?:(?!<\/th>).)*Email/)
    expect(html).toContain('>Role</th>')
    expect(html).toContain('Ann Lee')
    expect(html).toContain('Bo &lt;Tan&gt;') // cell text is escaped, never HTML
    expect(hrefs(html)).toEqual(expect.arrayContaining(['/admin/user/u1', '/admin/user/u2']))
    expect(html).toContain('Showing 1–2 of 2')
    expect(html).not.toContain('No Data Found')
  })

  it('shows the empty text when there are no rows', async () => {
    const html = await renderTable('/admin/coach', { label: "Coach's List", rows: [], total: 0, page: 1, pageSize: 7 })
    expect(html).toContain('No Data Found')
    expect(html).toMatch(/<td colspan="3">/i)
    expect(html).toContain('Showing 0 of 0')
  })

  it('builds paging and sort links that keep the other query parameters', async () => {
    const html = await renderTable('/admin/accesslog?q=sql&course=c1&course=c2&size=14&sort=name&dir=asc&page=2', {
      label: 'Access Log',
      total: 40,
      page: 2,
      pageSize: 14,
      sort: 'name',
      dir: 'asc',
    })
    const links = hrefs(html)
    expect(links).toContain('/admin/accesslog?q=sql&course=c1&course=c2&size=14&sort=name&dir=asc&page=1')
    expect(links).toContain('/admin/accesslog?q=sql&course=c1&course=c2&size=14&sort=name&dir=asc&page=3')
    // sorting again by the sorted column flips the direction and goes back to the first page
    expect(links).toContain('/admin/accesslog?q=sql&course=c1&course=c2&size=14&sort=name&dir=desc')
    expect(links).toContain('/admin/accesslog?q=sql&course=c1&course=c2&size=14&sort=email&dir=asc')
    expect(html).toContain('Showing 15–16 of 40')
    expect(html).toContain('Page <!-- -->2<!-- --> of <!-- -->3')
  })

  it('disables Previous on the first page and Next on the last', async () => {
    const first = await renderTable('/admin/users', { label: 'Users', total: 9, page: 1, pageSize: 7 })
    expect(first).toMatch(/<a role="link" aria-disabled="true"[^>]*>Previous<\/a>/)
    expect(hrefs(first)).toContain('/admin/users?page=2')

    const last = await renderTable('/admin/users?page=2', { label: 'Users', total: 9, page: 2, pageSize: 7 })
    expect(last).toMatch(/<a role="link" aria-disabled="true"[^>]*>Next<\/a>/)
    expect(hrefs(last)).toContain('/admin/users?page=1')
    expect(last).toContain('Showing 8–9 of 9')
  })

  it('carries the other parameters through the search and page size forms as hidden inputs', async () => {
    const html = await renderTable('/admin/courses?q=old&sort=title&dir=desc&page=4&size=21', {
      label: 'Course List',
      total: 100,
      page: 4,
      pageSize: 21,
      search: { value: 'old', placeholder: 'Search courses' },
    })
    const forms = [...html.matchAll(/<form[^>]*>(.*?)<\/form>/g)].map((m) => m[0])
    expect(forms).toHaveLength(2)
    const [searchForm, sizeForm] = forms
    expect(searchForm).toContain('method="get"')
    expect(searchForm).toContain('action="/admin/courses"')
    expect(searchForm).toContain('name="q"')
    expect(searchForm).toContain('value="old"')
    expect(searchForm).toContain('<input type="hidden" name="sort" value="title"/>')
    expect(searchForm).toContain('<input type="hidden" name="size" value="21"/>')
    expect(searchForm).not.toContain('name="page"') // a new search starts on page 1

    expect(sizeForm).toContain('<select')
    expect(sizeForm).toContain('name="size"')
    expect(sizeForm).toMatch(/<option value="21" selected="">21<\/option>/)
    expect(sizeForm).toContain('<input type="hidden" name="q" value="old"/>')
    expect(sizeForm).not.toContain('name="page"')
    expect(sizeForm).not.toContain('type="hidden" name="size"')
    // on the server (and without JavaScript) the Apply button is visible
    expect(sizeForm).toMatch(/<button type="submit" class="btn-secondary py-1">Apply<\/button>/)
  })
})
