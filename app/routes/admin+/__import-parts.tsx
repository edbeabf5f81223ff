import { Link } from '@remix-run/react'

// Pieces shared by the Import users page and the page of one import's progress.

export const IMPORT_PATH = '/admin/users/import'

export const plural = (count: number, noun: string) => `${count.toLocaleString('en')} ${noun}${count === 1 ? '' : 's'}`

/** The way back to the Users List, and the page's heading. */
export function ImportHeading() {
  return (
    <>
      <p className="text-sm">
        <Link to="/admin/users" className="text-brand-700 underline">
          Users List
        </Link>
      </p>
      <h1 className="mt-2 text-2xl font-bold">Import users</h1>
    </>
  )
}

/** Counts as tiles; `data-count` names each value for the end-to-end tests. */
export function CountList({ items }: { items: [string, number][] }) {
  return (
    <dl className={`mt-4 grid grid-cols-2 gap-3 ${items.length > 4 ? 'sm:grid-cols-5' : 'sm:grid-cols-4'}`}>
      {items.map(([label, value]) => (
        <div key={label} className="rounded-lg bg-slate-50 p-3">
          <dt className="text-xs font-medium text-slate-600">{label}</dt>
          <dd className="text-xl font-semibold tabular-nums" data-count={label}>
            {value.toLocaleString('en')}
          </dd>
        </div>
      ))}
    </dl>
  )
}
