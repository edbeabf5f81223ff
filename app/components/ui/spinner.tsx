/**
 * A small spinning ring. With a `label` it is a status message read out by screen readers; with
 * `label={null}` it is decoration beside text that already says what is happening.
 */
export function Spinner({
  label = 'Loading…',
  size = 'sm',
  className = '',
}: {
  label?: string | null
  size?: 'sm' | 'md'
  className?: string
}) {
  const ring = (
    <svg
      viewBox="0 0 24 24"
      fill="none"
      aria-hidden
      className={`animate-spin motion-reduce:animate-[spin_1.5s_linear_infinite] ${size === 'md' ? 'h-8 w-8' : 'h-4 w-4'}`}
    >
      <circle cx="12" cy="12" r="10" stroke="currentColor" strokeWidth="4" className="opacity-25" />
      <path d="M22 12a10 10 0 0 0-10-10" stroke="currentColor" strokeWidth="4" strokeLinecap="round" />
    </svg>
  )
  if (label === null) return <span className={`inline-flex ${className}`}>{ring}</span>
  return (
    <span role="status" className={`inline-flex items-center ${className}`}>
      {ring}
      <span className="sr-only">{label}</span>
    </span>
  )
}

/** A form's submit button that, while the form is on its way, is disabled and says `busyLabel` by a spinner. */
export function BusyButton({ busy, label, busyLabel }: { busy: boolean; label: string; busyLabel: string }) {
  return (
    <button type="submit" className="btn-primary" disabled={busy} aria-disabled={busy}>
      {busy ? <Spinner label={null} /> : null}
      {busy ? busyLabel : label}
    </button>
  )
}
