import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { Html5Adapter, type PlayerState, VimeoAdapter, YouTubeAdapter } from './adapters.ts'

/** An iframe stand-in: records what the page posts to it. */
class FakeFrame extends EventTarget {
  posted: { message: unknown; targetOrigin: string }[] = []
  contentWindow: { postMessage: (message: unknown, targetOrigin: string) => void; location?: { href: string } } = {
    postMessage: (message, targetOrigin) => this.posted.push({ message, targetOrigin }),
  }
  constructor(public src: string) {
    super()
  }
  /** The messages posted, parsed when they are JSON strings. */
  messages() {
    return this.posted.map(({ message }) => (typeof message === 'string' ? JSON.parse(message) : message))
  }
}

/** The page's window stand-in, and a way to deliver a message to it as a frame would. */
function setup(src: string) {
  const page = new EventTarget()
  const frame = new FakeFrame(src)
  const origin = new URL(src).origin
  const deliver = (data: unknown, from: { source?: unknown; origin?: string } = {}) => {
    const event = new Event('message')
    Object.defineProperties(event, {
      data: { value: data },
      origin: { value: from.origin ?? origin },
      source: { value: 'source' in from ? from.source : frame.contentWindow },
    })
    page.dispatchEvent(event)
  }
  const reports: [number, PlayerState][] = []
  const onTime = (time: number, state: PlayerState) => reports.push([time, state])
  return { page, frame, deliver, reports, onTime, asFrame: frame as unknown as HTMLIFrameElement }
}

beforeEach(() => {
  vi.useFakeTimers()
})
afterEach(() => {
  vi.useRealTimers()
})

describe('YouTubeAdapter', () => {
  const src = 'https://www.youtube-nocookie.com/embed/dQw4w9WgXcQ?enablejsapi=1&origin=https%3A%2F%2Fportal.test'

  it('posts "listening" as a JSON string to the player’s origin until the player answers', () => {
    const { frame, asFrame, page, deliver, onTime } = setup(src)
    const adapter = new YouTubeAdapter(asFrame, page)
    adapter.start(onTime)
    vi.advanceTimersByTime(600)
    expect(frame.posted.length).toBe(3)
    const [first] = frame.posted
    expect(typeof first.message).toBe('string')
    expect(first.targetOrigin).toBe('https://www.youtube-nocookie.com')
    const listening = frame.messages()[0]
    expect(listening).toEqual({ event: 'listening', id: expect.any(Number), channel: 'widget' })

    deliver(JSON.stringify({ event: 'onReady', id: listening.id, channel: 'widget' }))
    const after = frame.posted.length
    vi.advanceTimersByTime(5000)
    expect(
      frame
        .messages()
        .slice(after)
        .filter((m) => m.event === 'listening'),
    ).toEqual([])
    // it registers for state changes, as YouTube's own script does
    expect(frame.messages()).toContainEqual({
      event: 'command',
      func: 'addEventListener',
      args: ['onStateChange'],
      id: listening.id,
      channel: 'widget',
    })
    adapter.stop()
  })

  it('waits for the player’s page to load before greeting, and greets again when it reloads', () => {
    const { frame, asFrame, page, onTime } = setup(src)
    frame.contentWindow.location = { href: 'about:blank' }
    const adapter = new YouTubeAdapter(asFrame, page)
    adapter.start(onTime)
    vi.advanceTimersByTime(1000)
    expect(frame.posted).toEqual([])
    frame.dispatchEvent(new Event('load'))
    expect(frame.messages()).toEqual([expect.objectContaining({ event: 'listening' })])
    adapter.stop()
  })

  it('gives up greeting a player that never answers', () => {
    const { frame, asFrame, page, onTime } = setup(src)
    const adapter = new YouTubeAdapter(asFrame, page, 250, 2000)
    adapter.start(onTime)
    vi.advanceTimersByTime(10_000)
    expect(frame.posted.length).toBe(9) // one at once, then eight in two seconds
    adapter.stop()
  })

  it('reports time, state and duration from infoDelivery, keeping fields that are not repeated', () => {
    const { asFrame, page, deliver, reports, onTime } = setup(src)
    const adapter = new YouTubeAdapter(asFrame, page)
    adapter.start(onTime)
    deliver(JSON.stringify({ event: 'onReady', info: null }))
    deliver(JSON.stringify({ event: 'infoDelivery', info: { currentTime: 0, playerState: 5, duration: 212.3 } }))
    deliver(JSON.stringify({ event: 'infoDelivery', info: { playerState: 1 } }))
    deliver(JSON.stringify({ event: 'infoDelivery', info: { currentTime: 1.25 } }))
    deliver(JSON.stringify({ event: 'onStateChange', info: 2 }))
    deliver(JSON.stringify({ event: 'infoDelivery', info: { currentTime: 1.5, playerState: 3 } }))
    deliver(JSON.stringify({ event: 'infoDelivery', info: { currentTime: 212.3, playerState: 0 } }))
    expect(reports).toEqual([
      [0, 'paused'],
      [0, 'paused'],
      [0, 'playing'],
      [1.25, 'playing'],
      [1.25, 'paused'],
      [1.5, 'buffering'],
      [212.3, 'ended'],
    ])
    expect(adapter.duration).toBe(212.3)
    adapter.stop()
  })

  it('accepts only messages from its own frame’s window and origin', () => {
    const { asFrame, page, deliver, reports, onTime } = setup(src)
    const adapter = new YouTubeAdapter(asFrame, page)
    adapter.start(onTime)
    const info = JSON.stringify({ event: 'infoDelivery', info: { currentTime: 50, playerState: 1 } })
    deliver(info, { origin: 'https://evil.example' })
    deliver(info, { source: {} })
    deliver(info, { source: null })
    deliver('not json')
    deliver(JSON.stringify([1, 2]))
    expect(reports).toEqual([])
    deliver(info)
    expect(reports).toEqual([[50, 'playing']])
    adapter.stop()
  })

  it('holds a seek until the first play (a seek would start an unstarted video), then seeks at once', () => {
    const { frame, asFrame, page, deliver, onTime } = setup(src)
    const adapter = new YouTubeAdapter(asFrame, page)
    adapter.start(onTime)
    deliver(JSON.stringify({ event: 'onReady' }))
    adapter.seekTo(95)
    const seeks = () => frame.messages().filter((m) => m.func === 'seekTo')
    expect(seeks()).toEqual([])
    deliver(JSON.stringify({ event: 'infoDelivery', info: { currentTime: 0.2, playerState: 1 } }))
    expect(seeks()).toEqual([
      { event: 'command', func: 'seekTo', args: [95, true], id: expect.any(Number), channel: 'widget' },
    ])
    adapter.seekTo(10)
    expect(seeks().map((m) => m.args)).toEqual([
      [95, true],
      [10, true],
    ])
    adapter.stop()
  })

  it('reports nothing and stops greeting after stop()', () => {
    const { frame, asFrame, page, deliver, reports, onTime } = setup(src)
    const adapter = new YouTubeAdapter(asFrame, page)
    adapter.start(onTime)
    adapter.stop()
    const posted = frame.posted.length
    vi.advanceTimersByTime(2000)
    deliver(JSON.stringify({ event: 'infoDelivery', info: { currentTime: 3, playerState: 1 } }))
    expect(frame.posted.length).toBe(posted)
    expect(reports).toEqual([])
  })
})

describe('VimeoAdapter', () => {
  const src = 'https://player.vimeo.com/video/76979871?api=1'

  it('pings until ready, then subscribes to its events and asks for the duration', () => {
    const { frame, asFrame, page, deliver, reports, onTime } = setup(src)
    const adapter = new VimeoAdapter(asFrame, page)
    adapter.start(onTime)
    vi.advanceTimersByTime(300)
    expect(frame.messages()).toEqual([{ method: 'ping' }, { method: 'ping' }])
    expect(frame.posted[0].targetOrigin).toBe('https://player.vimeo.com')
    frame.posted = []
    deliver(JSON.stringify({ event: 'ready', player_id: '' }))
    vi.advanceTimersByTime(2000)
    const methods = frame.messages()
    expect(methods).not.toContainEqual({ method: 'ping' })
    for (const name of ['timeupdate', 'play', 'pause', 'ended']) {
      expect(methods).toContainEqual({ method: 'addEventListener', value: name })
    }
    expect(methods).toContainEqual({ method: 'getDuration' })
    expect(reports).toEqual([[0, 'paused']])
    adapter.stop()
  })

  it('reports timeupdate seconds and the states of play, pause and ended, from objects or strings', () => {
    const { asFrame, page, deliver, reports, onTime } = setup(src)
    const adapter = new VimeoAdapter(asFrame, page)
    adapter.start(onTime)
    deliver({ event: 'ready' })
    deliver({ method: 'getDuration', value: 61.5 })
    deliver({ event: 'play', data: { seconds: 0, duration: 61.5 } })
    deliver(JSON.stringify({ event: 'timeupdate', data: { seconds: 0.26, percent: 0.004, duration: 61.5 } }))
    deliver({ event: 'bufferstart' })
    deliver({ event: 'bufferend' })
    deliver({ event: 'pause', data: { seconds: 0.4 } })
    deliver({ event: 'ended', data: { seconds: 61.5 } })
    deliver({ event: 'somethingElse', data: { seconds: 3 } })
    expect(reports).toEqual([
      [0, 'paused'],
      [0, 'paused'],
      [0, 'playing'],
      [0.26, 'playing'],
      [0.26, 'buffering'],
      [0.26, 'playing'],
      [0.4, 'paused'],
      [61.5, 'ended'],
    ])
    expect(adapter.duration).toBe(61.5)
    adapter.stop()
  })

  it('accepts only messages from its own frame’s window and origin', () => {
    const { asFrame, page, deliver, reports, onTime } = setup(src)
    const adapter = new VimeoAdapter(asFrame, page)
    adapter.start(onTime)
    deliver({ event: 'ready' }, { origin: 'https://vimeo.evil.example' })
    deliver({ event: 'ready' }, { source: {} })
    expect(reports).toEqual([])
    adapter.stop()
  })

  it('holds a seek until the first play, then sends setCurrentTime', () => {
    const { frame, asFrame, page, deliver, onTime } = setup(src)
    const adapter = new VimeoAdapter(asFrame, page)
    adapter.start(onTime)
    deliver({ event: 'ready' })
    adapter.seekTo(42)
    expect(frame.messages()).not.toContainEqual({ method: 'setCurrentTime', value: 42 })
    deliver({ event: 'play', data: { seconds: 0 } })
    expect(frame.messages()).toContainEqual({ method: 'setCurrentTime', value: 42 })
    adapter.stop()
  })
})

/** A `<video>` stand-in with the properties the adapter reads. */
class FakeVideo extends EventTarget {
  currentTime = 0
  paused = true
  ended = false
  duration = Number.NaN
  readyState = 0
  fire(type: string) {
    this.dispatchEvent(new Event(type))
  }
}

describe('Html5Adapter', () => {
  function setupVideo() {
    const video = new FakeVideo()
    const reports: [number, PlayerState][] = []
    const adapter = new Html5Adapter(video as unknown as HTMLVideoElement)
    return { video, adapter, reports, onTime: (t: number, s: PlayerState) => reports.push([t, s]) }
  }

  it('reports its events with the state they leave it in', () => {
    const { video, adapter, reports, onTime } = setupVideo()
    adapter.start(onTime)
    expect(reports).toEqual([]) // no metadata yet
    video.readyState = 1
    video.duration = 30.5
    video.fire('loadedmetadata')
    video.paused = false
    video.fire('play')
    video.currentTime = 0.25
    video.fire('timeupdate')
    video.fire('waiting')
    video.fire('playing')
    video.currentTime = 0.4
    video.paused = true
    video.fire('pause')
    video.currentTime = 30.5
    video.ended = true
    video.fire('ended')
    expect(reports).toEqual([
      [0, 'paused'],
      [0, 'playing'],
      [0.25, 'playing'],
      [0.25, 'buffering'],
      [0.25, 'playing'],
      [0.4, 'paused'],
      [30.5, 'ended'],
    ])
    expect(adapter.duration).toBe(30.5)
    adapter.stop()
  })

  it('reports at once when the video loaded before the script, and reads currentTime every second while playing', () => {
    const { video, adapter, reports, onTime } = setupVideo()
    video.readyState = 4
    video.paused = false
    video.currentTime = 5
    adapter.start(onTime)
    expect(reports).toEqual([[5, 'playing']])
    video.currentTime = 6
    vi.advanceTimersByTime(1000)
    video.currentTime = 7
    vi.advanceTimersByTime(1000)
    expect(reports).toEqual([
      [5, 'playing'],
      [6, 'playing'],
      [7, 'playing'],
    ])
    video.paused = true
    video.fire('pause')
    vi.advanceTimersByTime(5000)
    expect(reports.length).toBe(4)
    adapter.stop()
  })

  it('seeks at once when it can, or as soon as the metadata is there', () => {
    const { video, adapter, onTime } = setupVideo()
    adapter.start(onTime)
    adapter.seekTo(12)
    expect(video.currentTime).toBe(0)
    video.readyState = 1
    video.fire('loadedmetadata')
    expect(video.currentTime).toBe(12)
    adapter.seekTo(20)
    expect(video.currentTime).toBe(20)
    adapter.stop()
  })

  it('reports nothing after stop()', () => {
    const { video, adapter, reports, onTime } = setupVideo()
    video.readyState = 1
    adapter.start(onTime)
    adapter.stop()
    video.fire('timeupdate')
    expect(reports).toEqual([[0, 'paused']])
  })
})
