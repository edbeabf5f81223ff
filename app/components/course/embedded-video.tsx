/**
 * A video embed without progress tracking (previews, the admin's view, the admin side watching a
 * course): the stored, allow-listed address in a sandboxed frame; nothing typed by an admin is HTML.
 */
export function EmbeddedVideo({
  src,
  title,
  lazy = false,
  className = 'aspect-video overflow-hidden rounded-xl bg-black shadow',
}: {
  src: string
  title: string
  lazy?: boolean
  className?: string
}) {
  return (
    <div className={className}>
      <iframe
        src={src}
        title={title}
        loading={lazy ? 'lazy' : undefined}
        className="h-full w-full"
        allow="encrypted-media; picture-in-picture; fullscreen"
        sandbox="allow-scripts allow-same-origin allow-presentation"
        referrerPolicy="strict-origin-when-cross-origin"
      />
    </div>
  )
}
