import { useEffect, useRef } from 'react'
import { VideoFrame } from '#app/components/course/embedded-video.tsx'
import { useHydrated } from '#app/utils/use-hydrated.ts'
import { createAdapter } from './adapters.ts'
import { playerSrc, videoProvider } from './provider.ts'
import { ProgressReporter, type ProgressAnswer } from './reporter.ts'

export type PlayerVideo = {
  id: string
  title: string
  /** Stored normalised and allow-listed by the server (app/modules/content/embed.ts). */
  embedUrl: string
  /** Seconds, when the portal knows it. */
  duration: number | null
  /** Where the learner stopped last time (seconds). */
  lastPosition: number | null
}

type VideoPlayerProps = {
  video: PlayerVideo
  courseId: string
  userId: string
  /** Each answer of the server to a heartbeat (the page revalidates once `completed` turns true). */
  onProgress?: (answer: ProgressAnswer) => void
}

const BOX = 'aspect-video w-full overflow-hidden rounded-xl bg-black shadow'

/**
 * The video with progress that reflects real viewing: the player's adapter reports the playhead,
 * the tracker keeps the seconds really played, and heartbeats carry them to the server. Another
 * video (another id) gets a fresh player, tracker and heartbeats.
 */
export function VideoPlayer(props: VideoPlayerProps) {
  return <TrackedVideo key={props.video.id} {...props} />
}

function TrackedVideo({ video, courseId, userId, onProgress }: VideoPlayerProps) {
  const provider = videoProvider(video.embedUrl)
  const hydrated = useHydrated()
  const frameRef = useRef<HTMLIFrameElement>(null)
  const videoRef = useRef<HTMLVideoElement>(null)
  // read when tracking starts; a revalidation changing them must not restart the player
  const initial = useRef({ duration: video.duration, lastPosition: video.lastPosition })
  const onProgressRef = useRef(onProgress)
  useEffect(() => {
    onProgressRef.current = onProgress
  })

  const { id: videoId, embedUrl } = video
  useEffect(() => {
    if (!hydrated || provider === 'none') return
    const adapter = createAdapter(provider, provider === 'html5' ? videoRef.current : frameRef.current)
    if (!adapter) return
    const reporter = new ProgressReporter({
      courseId,
      videoId,
      userId,
      embedUrl,
      ...initial.current,
      seekTo: (seconds) => adapter.seekTo(seconds),
      playerDuration: () => adapter.duration,
      onProgress: (answer) => onProgressRef.current?.(answer),
    })
    adapter.start((time, state) => reporter.onTime(time, state))
    const ticker = setInterval(() => reporter.tick(), 1000)
    // the page may never come back (another page, a closed tab): keepalive lets the request finish
    const leave = () => void reporter.flush(true)
    const onVisibility = () => {
      if (document.visibilityState === 'hidden') leave()
    }
    document.addEventListener('visibilitychange', onVisibility)
    window.addEventListener('pagehide', leave)
    return () => {
      clearInterval(ticker)
      document.removeEventListener('visibilitychange', onVisibility)
      window.removeEventListener('pagehide', leave)
      adapter.stop()
      leave()
    }
  }, [hydrated, provider, courseId, userId, videoId, embedUrl])

  if (provider === 'html5') {
    return (
      <div className={BOX}>
        <video
          ref={videoRef}
          src={embedUrl}
          controls
          preload="metadata"
          playsInline
          aria-label={video.title}
          className="h-full w-full"
        >
          <a href={embedUrl}>Download “{video.title}”</a>
        </video>
      </div>
    )
  }

  if (provider === 'none') {
    return (
      <div className="space-y-2">
        <div className={BOX}>
          {isWebAddress(embedUrl) ? <VideoFrame src={embedUrl} title={video.title} autoplay /> : null}
        </div>
        <p className="text-sm text-slate-500">Progress is not tracked for this video.</p>
      </div>
    )
  }

  // the player's address names this page's origin, known in the browser only; without
  // JavaScript the plain player still plays, untracked
  return (
    <div className={BOX}>
      {hydrated ? (
        <VideoFrame
          frameRef={frameRef}
          src={playerSrc(embedUrl, window.location.origin)}
          title={video.title}
          autoplay
        />
      ) : (
        <noscript>
          <VideoFrame src={embedUrl} title={video.title} autoplay />
        </noscript>
      )}
    </div>
  )
}

function isWebAddress(value: string) {
  try {
    return ['https:', 'http:'].includes(new URL(value).protocol)
  } catch {
    return false
  }
}
