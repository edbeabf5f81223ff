/** Rows per page an admin table offers; the first is the default. */
export const PAGE_SIZES = [7, 14, 21] as const
type PageSize = (typeof PAGE_SIZES)[number]
const DEFAULT_PAGE_SIZE: PageSize = 7

export type SortDir = 'asc' | 'desc'

export type TableQuery<SortKey extends string = string> = {
  /** The trimmed search text, '' when none. */
  q: string
  /** 1-based. */
  page: number
  size: PageSize
  sort: SortKey
  dir: SortDir
  /** Rows to skip: (page - 1) × size. */
  offset: number
}

/** A DataTable's paging and sorting props, as the page's query gives them. */
export const pagingProps = (query: Pick<TableQuery, 'page' | 'size' | 'sort' | 'dir'>) => ({
  page: query.page,
  pageSize: query.size,
  sort: query.sort,
  dir: query.dir,
})

// Far past any real table (millions of log rows at 7 a page), low enough that the offset stays a
// safe integer for the database instead of a 500 on `?page=1e30`.
const MAX_PAGE = 10_000_000
// A search box is not a place for a novel; the database should not see one either.
const MAX_QUERY_LENGTH = 200

function isPageSize(value: number): value is PageSize {
  return (PAGE_SIZES as readonly number[]).includes(value)
}

/**
 * Reads an admin table's paging, sorting and search from the URL (`?q=&page=&size=&sort=&dir=`),
 * replacing anything missing or out of range by a safe default, so a loader can pass the result
 * straight to a service.
 */
export function parseTableQuery<SortKey extends string>(
  url: URL,
  options: { sortKeys: readonly SortKey[]; defaultSort: SortKey; defaultDir?: SortDir },
): TableQuery<SortKey> {
  const params = url.searchParams
  const q = (params.get('q') ?? '').trim().slice(0, MAX_QUERY_LENGTH)

  const rawPage = params.get('page') ?? ''
  const page = /^\d+$/.test(rawPage) ? Math.min(Math.max(Number(rawPage), 1), MAX_PAGE) : 1

  const rawSize = Number(params.get('size'))
  const size = isPageSize(rawSize) ? rawSize : DEFAULT_PAGE_SIZE

  const rawSort = params.get('sort')
  const sortGiven = options.sortKeys.find((key) => key === rawSort)
  const sort = sortGiven ?? options.defaultSort

  const rawDir = params.get('dir')
  const dir: SortDir =
    rawDir === 'asc' || rawDir === 'desc' ? rawDir : sortGiven ? 'asc' : (options.defaultDir ?? 'asc')

  return { q, page, size, sort, dir, offset: (page - 1) * size }
}

/**
 * The link to the same page with some query parameters changed (`null` removes one), keeping every
 * other parameter, repeated ones included (a filter's `?course=1&course=2`).
 */
export function tableHref(
  pathname: string,
  current: URLSearchParams,
  changes: Record<string, string | number | null>,
): string {
  const params = new URLSearchParams(current)
  for (const [name, value] of Object.entries(changes)) {
    if (value === null) params.delete(name)
    else params.set(name, String(value))
  }
  const search = params.toString()
  return search ? `${pathname}?${search}` : pathname
}

/** The query parameters a GET form must carry as hidden inputs so that submitting it keeps them. */
export function keptParams(current: URLSearchParams, except: readonly string[]): [string, string][] {
  return [...current.entries()].filter(([name]) => !except.includes(name))
}
