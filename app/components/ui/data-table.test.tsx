import { describe, expect, it } from 'vitest'
import { postedBy, renderComponent } from '#tests/render.tsx'
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

/** The table of `users` (or of the given rows) as the page at `url` shows it. */
const renderTable = (
  url: string,
  props: Omit<DataTableProps<User>, 'columns' | 'rows' | 'getRowKey'> & { rows?: User[] },
) => renderComponent(<DataTable columns={columns} rows={users} getRowKey={(u) => u.id} {...props} />, url)

const href = (link: HTMLElement) => link.getAttribute('href')

describe('DataTable', () => {
  it('renders the headers, the rows and a link per row', async () => {
    const page = await renderTable('/admin/users', {
      label: 'Users List',
      rowHref: (u) => `/admin/user/${u.id}`,
      total: 2,
      page: 1,
      pageSize: 7,
      sort: 'name',
      dir: 'asc',
    })
    const table = page.getByRole('table', { name: 'Users List' })
    // the table scrolls sideways in a named box that a keyboard can reach, not the whole page
    const box = page.getByRole('region', { name: 'Users List' })
    expect(box).toContainElement(table)
    expect(box).toHaveAttribute('tabindex', '0')
    expect(box).toHaveClass('overflow-x-auto')
    expect(page.getByRole('columnheader', { name: /^Name/ })).toHaveAttribute('aria-sort', 'ascending')
    expect(page.getByRole('columnheader', { name: /^Email/ })).not.toHaveAttribute('aria-sort')
    expect(page.getByRole('columnheader', { name: 'Role' })).toBeInTheDocument()
    // cell text is text, never HTML
    expect(href(page.getByRole('link', { name: 'Bo <Tan>' }))).toBe('/admin/user/u2')
    expect(href(page.getByRole('link', { name: 'Ann Lee' }))).toBe('/admin/user/u1')
    expect(page.getAllByRole('row')).toHaveLength(3)
    expect(page.getByText('Showing 1–2 of 2')).toBeInTheDocument()
    expect(page.queryByText('No Data Found')).toBeNull()
  })

  it('shows the empty text when there are no rows', async () => {
    const page = await renderTable('/admin/coach', {
      label: "Coach's List",
      rows: [],
      total: 0,
      page: 1,
      pageSize: 7,
    })
    const cell = page.getByRole('cell')
    expect(cell).toHaveAttribute('colspan', '3')
    expect(cell).toHaveTextContent('No Data Found')
    expect(page.getByText('Showing 0 of 0')).toBeInTheDocument()
  })

  it('builds paging and sort links that keep the other query parameters', async () => {
    const page = await renderTable('/admin/accesslog?q=sql&course=c1&course=c2&size=14&sort=name&dir=asc&page=2', {
      label: 'Access Log',
      total: 40,
      page: 2,
      pageSize: 14,
      sort: 'name',
      dir: 'asc',
    })
    const kept = '/admin/accesslog?q=sql&course=c1&course=c2&size=14'
    const paging = page.getByRole('navigation', { name: 'Access Log pages' })
    expect(href(page.getByRole('link', { name: 'Previous' }))).toBe(`${kept}&sort=name&dir=asc&page=1`)
    expect(href(page.getByRole('link', { name: 'Next' }))).toBe(`${kept}&sort=name&dir=asc&page=3`)
    expect(paging).toHaveTextContent('Page 2 of 3')
    // sorting again by the sorted column flips the direction and goes back to the first page
    expect(href(page.getByRole('link', { name: 'Name, sort descending' }))).toBe(`${kept}&sort=name&dir=desc`)
    expect(href(page.getByRole('link', { name: 'Email, sort ascending' }))).toBe(`${kept}&sort=email&dir=asc`)
    expect(page.getByText('Showing 15–16 of 40')).toBeInTheDocument()
  })

  it('disables Previous on the first page and Next on the last', async () => {
    const first = await renderTable('/admin/users', { label: 'Users', total: 9, page: 1, pageSize: 7 })
    expect(first.getByRole('link', { name: 'Previous' })).toHaveAttribute('aria-disabled', 'true')
    expect(first.getByRole('link', { name: 'Previous' })).not.toHaveAttribute('href')
    expect(href(first.getByRole('link', { name: 'Next' }))).toBe('/admin/users?page=2')

    const last = await renderTable('/admin/users?page=2', { label: 'Users', total: 9, page: 2, pageSize: 7 })
    expect(last.getByRole('link', { name: 'Next' })).toHaveAttribute('aria-disabled', 'true')
    expect(last.getByRole('link', { name: 'Next' })).not.toHaveAttribute('href')
    expect(href(last.getByRole('link', { name: 'Previous' }))).toBe('/admin/users?page=1')
    expect(last.getByText('Showing 8–9 of 9')).toBeInTheDocument()
  })

  it('carries the other parameters through the search and page size forms', async () => {
    const page = await renderTable('/admin/courses?q=old&sort=title&dir=desc&page=4&size=21', {
      label: 'Course List',
      total: 100,
      page: 4,
      pageSize: 21,
      search: { value: 'old', placeholder: 'Search courses' },
    })
    const search = page.getByRole('search')
    expect(search).toHaveAttribute('method', 'get')
    expect(search).toHaveAttribute('action', '/admin/courses')
    expect(page.getByRole('searchbox', { name: 'Search' })).toHaveValue('old')
    // a new search starts on page 1
    expect(postedBy(search)).toEqual([
      ['sort', 'title'],
      ['dir', 'desc'],
      ['size', '21'],
      ['q', 'old'],
    ])

    const size = page.getByRole('combobox', { name: 'Rows per page' })
    expect(size).toHaveValue('21')
    expect(postedBy(size.closest('form'))).toEqual([
      ['q', 'old'],
      ['sort', 'title'],
      ['dir', 'desc'],
      ['size', '21'],
    ])
    // on the server (and without JavaScript) the Apply button is visible
    expect(page.getByRole('button', { name: 'Apply' })).not.toHaveClass('sr-only')
  })
})
