import { useEffect } from 'react'
import type { PAGE_NAMES } from '#app/modules/progress/schema.ts'

export const ACCESS_LOG_INTERVAL_MS = 60_000

type AccessLogPing = {
  pageName: (typeof PAGE_NAMES)[number]
  courseId?: string
  videoId?: string
}

/** What the pings need from the browser; tests hand in their own. */
export type PingHost = {
  document: Pick<Document, 'visibilityState' | 'addEventListener' | 'removeEventListener'>
  fetch: typeof fetch
  setInterval: (callback: () => void, ms: number) => number
  clearInterval: (timer: number) => void
}

/**
 * The access-log ping (docs/product.md#access-log): once when the page shows, then every 60 s while it is visible
 * (Page Visibility API), and again when the tab comes back. Failures are only logged.
 * Answers the function that stops the pings.
 */
export function startAccessLogPings({ pageName, courseId, videoId }: AccessLogPing, host: PingHost): () => void {
  const send = () => {
    if (host.document.visibilityState !== 'visible') return
    host
      .fetch('/api/user/postAccessLog', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ pageName, recordedDate: new Date().toISOString(), courseId, videoId }),
      })
      .catch((error: unknown) => console.warn('Access log ping failed', error))
  }
  send()
  const timer = host.setInterval(send, ACCESS_LOG_INTERVAL_MS)
  const onVisible = () => host.document.visibilityState === 'visible' && send()
  host.document.addEventListener('visibilitychange', onVisible)
  return () => {
    host.clearInterval(timer)
    host.document.removeEventListener('visibilitychange', onVisible)
  }
}

/** The pings for a learner page, while it is mounted and `enabled`. */
export function useAccessLogPing(ping: AccessLogPing & { enabled: boolean }) {
  const { enabled, pageName, courseId, videoId } = ping
  useEffect(() => {
    if (!enabled) return
    return startAccessLogPings(
      { pageName, courseId, videoId },
      {
        document,
        fetch: (...args) => window.fetch(...args),
        setInterval: (callback, ms) => window.setInterval(callback, ms),
        clearInterval: (timer) => window.clearInterval(timer),
      },
    )
  }, [enabled, pageName, courseId, videoId])
}
