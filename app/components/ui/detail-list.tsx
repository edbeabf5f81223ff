import type { ReactNode } from 'react'

/** Read-only facts as a description list: a small label over each value, in a responsive grid. */
export function DetailList({
  items,
  className = '',
}: {
  items: [label: string, value: ReactNode][]
  className?: string
}) {
  return (
    <dl className={`grid gap-4 ${className}`}>
      {items.map(([label, value]) => (
        <div key={label}>
          <dt className="text-xs font-medium uppercase tracking-wide text-slate-500">{label}</dt>
          <dd className="mt-1 text-slate-900">{value}</dd>
        </div>
      ))}
    </dl>
  )
}
