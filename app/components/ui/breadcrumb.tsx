import { Link } from '@remix-run/react'

type Crumb = { label: string; to?: string }

/** "Courses / SQL Basics / Add New Video": linked steps back, the current page last and unlinked. */
export function Breadcrumb({ items }: { items: Crumb[] }) {
  return (
    <nav aria-label="Breadcrumb" className="text-sm text-slate-500">
      {items.map((item, index) => (
        <span key={`${index}-${item.label}`}>
          {index > 0 ? ' / ' : null}
          {item.to ? (
            <Link to={item.to} className="hover:underline">
              {item.label}
            </Link>
          ) : (
            <span aria-current="page" className="text-slate-700">
              {item.label}
            </span>
          )}
        </span>
      ))}
    </nav>
  )
}

/** A learner's way back from a page of a course: My Courses, then the course, then `page` if given. */
export function CourseBreadcrumb({ course, page }: { course: { _id: string; title: string }; page?: string }) {
  const items: Crumb[] = [
    { label: 'My Courses', to: '/courses' },
    { label: course.title, to: `/course/${course._id}` },
  ]
  return <Breadcrumb items={page === undefined ? items : [...items, { label: page }]} />
}
