import { useEffect } from 'react'
import type { PAGE_NAMES } from '#app/modules/progress/schema.ts'

export const ACCESS_LOG_INTERVAL_MS = 60_000

/**
 * The access-log ping of spec §4: once when the page shows, then every 60 s while it is visible
 * (Page Visibility API). Failures are only logged (spec §8).
 */
export function useAccessLogPing(ping: {
  enabled: boolean
  pageName: (typeof PAGE_NAMES)[number]
  courseId?: string
  videoId?: string
}) {
  const { enabled, pageName, courseId, videoId } = ping
  useEffect(() => {
    if (!enabled) return
    const send = () => {
      if (document.visibilityState !== 'visible') return
      fetch('/api/user/postAccessLog', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ pageName, recordedDate: new Date().toISOString(), courseId, videoId }),
      }).catch((error: unknown) => console.warn('Access log ping failed', error))
    }
    send()
    const timer = window.setInterval(send, ACCESS_LOG_INTERVAL_MS)
    // coming back to the tab counts as the page being shown again
    const onVisible = () => document.visibilityState === 'visible' && send()
    document.addEventListener('visibilitychange', onVisible)
    return () => {
      window.clearInterval(timer)
      document.removeEventListener('visibilitychange', onVisible)
    }
  }, [enabled, pageName, courseId, videoId])
}
