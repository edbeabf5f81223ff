/**
 * The course picture, or a calm placeholder when the course has none. `priority` is for the picture a
 * page shows first, likely its largest paint: fetched at once and ahead of the rest, where the others
 * wait until they near the screen.
 */
export function CourseImage({
  src,
  title,
  className = '',
  priority = false,
}: {
  src: string | null
  title: string
  className?: string
  priority?: boolean
}) {
  if (src)
    return (
      <img
        src={src}
        alt=""
        // the 16:9 box it is shown in (and the demo pictures' size), known before the file arrives
        width={640}
        height={360}
        className={`aspect-video w-full object-cover ${className}`}
        // React 18 passes fetchpriority through only when spelt in lower case
        {...(priority ? { fetchpriority: 'high' } : { loading: 'lazy' })}
      />
    )
  return (
    <div
      className={`flex aspect-video w-full items-center justify-center bg-gradient-to-br from-brand-700 to-brand-500 text-3xl font-bold text-white/90 ${className}`}
      aria-hidden
    >
      {title
        .split(/\s+/)
        .slice(0, 2)
        .map((w) => w[0])
        .join('')
        .toUpperCase()}
    </div>
  )
}
