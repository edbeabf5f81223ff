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
