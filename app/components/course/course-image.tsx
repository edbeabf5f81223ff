/** The course picture, or a calm placeholder when the course has none. */
export function CourseImage({ src, title, className = '' }: { src: string | null; title: string; className?: string }) {
  if (src) return <img src={src} alt="" className={`aspect-video w-full object-cover ${className}`} loading="lazy" />
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
