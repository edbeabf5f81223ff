import type { Ref } from 'react'

/** The one way a video host is framed: sandboxed, and told no more than the origin of the page. */
export function VideoFrame({
  src,
  title,
  frameRef,
  lazy = false,
  autoplay = false,
}: {
  src: string
  title: string
  frameRef?: Ref<HTMLIFrameElement>
  lazy?: boolean
  /** the tracked player starts the video itself (resume), so it may autoplay */
  autoplay?: boolean
}) {
  return (
    <iframe
      ref={frameRef}
      src={src}
      title={title}
      loading={lazy ? 'lazy' : undefined}
      className="h-full w-full"
      allow={`${autoplay ? 'autoplay; ' : ''}encrypted-media; picture-in-picture; fullscreen`}
      sandbox="allow-scripts allow-same-origin allow-presentation"
      referrerPolicy="strict-origin-when-cross-origin"
    />
  )
}

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
      <VideoFrame src={src} title={title} lazy={lazy} />
    </div>
  )
}
