import type { ReactNode } from 'react'

/**
 * The box a table wider than the screen scrolls in, so the page itself never scrolls sideways. It is a
 * named region that takes focus, so a keyboard can scroll it even when nothing inside can be focused.
 * Placed (`relative`), so what is positioned inside it (screen-reader text) stays inside it too.
 */
export function ScrollBox({
  label,
  labelledBy,
  className = '',
  children,
}: { className?: string; children: ReactNode } & (
  { label: string; labelledBy?: undefined } | { labelledBy: string; label?: undefined }
)) {
  return (
    <div
      role="region"
      aria-label={label}
      aria-labelledby={labelledBy}
      tabIndex={0}
      className={`relative overflow-x-auto focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-inset focus-visible:ring-brand-500 ${className}`}
    >
      {children}
    </div>
  )
}
