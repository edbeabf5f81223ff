import { Link } from '@remix-run/react'
import { type ReactNode } from 'react'
import { CourseImage } from '#app/components/course/course-image.tsx'
import { DataTable, type DataTableColumn } from '#app/components/ui/data-table.tsx'
import { pagingProps, type TableQuery } from '#app/components/ui/table-query.ts'

/**
 * An admin list of what the catalogue offers (courses, programs): the page's heading, then a table
 * paged, sorted and searched on the server whose first columns are the picture and the name, and the
 * Add button for an admin who may edit.
 */
export function CatalogueList<Row extends { _id: string; title: string }>({
  heading,
  noun,
  rows,
  total,
  query,
  image,
  name = (row) => row.title,
  nameClassName,
  columns,
  rowHref,
  add,
}: {
  /** "Course List": the page's h1 and the table's name */
  heading: string
  /** "course": for the search box and the text of an empty search */
  noun: string
  rows: Row[]
  total: number
  query: Pick<TableQuery, 'q' | 'page' | 'size' | 'sort' | 'dir'>
  /** the picture's address, null for the placeholder */
  image: (row: Row) => string | null
  /** the name cell; the title by default */
  name?: (row: Row) => ReactNode
  nameClassName?: string
  /** the columns after the name */
  columns: DataTableColumn<Row>[]
  /** where a row leads; its name is then the row's link */
  rowHref?: (row: Row) => string
  /** the Add button, for an admin who may edit */
  add: { to: string; label: string } | null
}) {
  return (
    <>
      <h1 className="text-2xl font-bold">{heading}</h1>
      <div className="mt-6">
        <DataTable
          label={heading}
          columns={[
            {
              id: 'image',
              header: 'Image',
              className: 'w-28',
              cell: (row) => <CourseImage src={image(row)} title={row.title} className="w-24 rounded" />,
            },
            { id: 'title', header: 'Name', sortKey: 'title', className: nameClassName, cell: name },
            ...columns,
          ]}
          linkColumn={rowHref ? 'title' : undefined}
          rows={rows}
          getRowKey={(row) => row._id}
          rowHref={rowHref}
          total={total}
          {...pagingProps(query)}
          emptyText={query.q ? `No ${noun} matches “${query.q}”.` : 'No Data Found'}
          search={{ value: query.q, placeholder: `Search ${noun}s`, label: `Search ${noun}s` }}
          actions={
            add ? (
              <Link to={add.to} className="btn-primary">
                {add.label}
              </Link>
            ) : null
          }
        />
      </div>
    </>
  )
}
