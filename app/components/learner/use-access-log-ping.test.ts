import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { ACCESS_LOG_INTERVAL_MS, startAccessLogPings, type PingHost } from './use-access-log-ping.ts'

/** A page whose visibility the test sets, with fake timers and a fetch that records what it sent. */
function page() {
  const events = new EventTarget()
  const sent: Record<string, unknown>[] = []
  const host = {
    document: {
      visibilityState: 'visible' as DocumentVisibilityState,
      addEventListener: events.addEventListener.bind(events),
      removeEventListener: events.removeEventListener.bind(events),
    },
    fetch: vi.fn(async (_url: string | URL | Request, init?: RequestInit) => {
      sent.push(JSON.parse(String(init?.body)) as Record<string, unknown>)
      return new Response(null, { status: 204 })
    }),
    setInterval: (callback: () => void, ms: number) => setInterval(callback, ms) as unknown as number,
    clearInterval: (timer: number) => clearInterval(timer),
  }
  const show = (state: DocumentVisibilityState) => {
    host.document.visibilityState = state
    events.dispatchEvent(new Event('visibilitychange'))
  }
  return { host: host as unknown as PingHost & typeof host, sent, show }
}

describe('the access-log pings', () => {
  beforeEach(() => vi.useFakeTimers())
  afterEach(() => vi.useRealTimers())

  it('go once when the page shows, then every 60 s, naming the page, course and video', () => {
    const { host, sent } = page()
    startAccessLogPings({ pageName: 'Video', courseId: 'c1', videoId: 'v1' }, host)
    expect(sent).toEqual([expect.objectContaining({ pageName: 'Video', courseId: 'c1', videoId: 'v1' })])
    expect(host.fetch).toHaveBeenCalledWith('/api/user/postAccessLog', expect.objectContaining({ method: 'POST' }))
    vi.advanceTimersByTime(ACCESS_LOG_INTERVAL_MS - 1)
    expect(sent).toHaveLength(1)
    vi.advanceTimersByTime(1)
    expect(sent).toHaveLength(2)
    vi.advanceTimersByTime(2 * ACCESS_LOG_INTERVAL_MS)
    expect(sent).toHaveLength(4)
    expect(ACCESS_LOG_INTERVAL_MS).toBe(60_000)
  })

  it('stay quiet while the tab is hidden, and go again when it comes back', () => {
    const { host, sent, show } = page()
    startAccessLogPings({ pageName: 'My Courses' }, host)
    show('hidden')
    vi.advanceTimersByTime(3 * ACCESS_LOG_INTERVAL_MS)
    expect(sent).toHaveLength(1)
    show('visible')
    expect(sent).toHaveLength(2)
  })

  it('stop when the page goes away', () => {
    const { host, sent, show } = page()
    const stop = startAccessLogPings({ pageName: 'Explore Courses' }, host)
    stop()
    vi.advanceTimersByTime(5 * ACCESS_LOG_INTERVAL_MS)
    show('visible')
    expect(sent).toHaveLength(1)
  })

  it('only log a failed ping', async () => {
    const { host } = page()
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined)
    host.fetch.mockRejectedValueOnce(new Error('offline'))
    startAccessLogPings({ pageName: 'Video' }, host)
    await vi.waitFor(() => expect(warn).toHaveBeenCalledWith('Access log ping failed', expect.any(Error)))
    warn.mockRestore()
  })
})
