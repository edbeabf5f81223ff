import { type ReactNode } from 'react'

/** What a list or table shows when it has nothing, e.g. "No Data Found", with an optional way on. */
export function EmptyState({
  title,
  text,
  action,
  className = '',
}: {
  title: string
  text?: ReactNode
  action?: ReactNode
  className?: string
}) {
  return (
    <div className={`flex flex-col items-center gap-2 px-4 py-10 text-center ${className}`}>
      <p className="text-base font-semibold text-slate-800">{title}</p>
      {text ? <p className="max-w-prose text-sm text-slate-600">{text}</p> : null}
      {action ? <div className="mt-2">{action}</div> : null}
    </div>
  )
}
