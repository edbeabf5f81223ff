import type { VideoProvider } from './provider.ts'

// Player adapters: one small object per player protocol, all reporting the playhead the same way,
// so the tracker and the heartbeats never know which player is on the page.

export type PlayerState = 'playing' | 'paused' | 'ended' | 'buffering'
type TimeListener = (time: number, state: PlayerState) => void

interface PlayerAdapter {
  /** The video's length in seconds as the player reports it (null until known). */
  readonly duration: number | null
  /** Starts listening; `onTime` is called when the player is ready and on every time or state report. */
  start(onTime: TimeListener): void
  /** Moves the playhead. Before the first play it waits for play: these players would start on a seek. */
  seekTo(seconds: number): void
  /** Stops listening; nothing is reported afterwards. */
  stop(): void
}

/** Where the page receives `message` events (the window; a stand-in in unit tests). */
type MessageTarget = Pick<EventTarget, 'addEventListener' | 'removeEventListener'>

const noop: TimeListener = () => {}

function positive(value: unknown): number | null {
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : null
}

function nonNegative(value: unknown): number | null {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : null
}

function parseMessage(data: unknown): Record<string, unknown> | null {
  let value = data
  if (typeof value === 'string') {
    try {
      value = JSON.parse(value)
    } catch {
      return null
    }
  }
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : null
}

/**
 * What both iframe protocols share: a greeting repeated until the player answers (for `greetFor`
 * ms after the player's page loads), and only messages from this iframe's window and its src's
 * origin accepted.
 */
abstract class FrameAdapter implements PlayerAdapter {
  protected onTime: TimeListener = noop
  protected time: number | null = null
  protected state: PlayerState = 'paused'
  protected playerDuration: number | null = null
  /** Whether the video has played at least once (a seek before that would start it). */
  protected started = false
  protected answered = false
  #pendingSeek: number | null = null
  #greeting: ReturnType<typeof setInterval> | undefined
  readonly #origin: string

  constructor(
    protected readonly frame: HTMLIFrameElement,
    protected readonly target: MessageTarget = window,
    readonly greetEvery = 250,
    readonly greetFor = 30_000,
  ) {
    this.#origin = new URL(frame.src).origin
  }

  get duration() {
    return this.playerDuration
  }

  start(onTime: TimeListener) {
    this.onTime = onTime
    this.target.addEventListener('message', this.#onMessage)
    this.frame.addEventListener('load', this.#onLoad)
    if (this.#playerLoaded()) this.#greet()
  }

  stop() {
    this.onTime = noop
    this.target.removeEventListener('message', this.#onMessage)
    this.frame.removeEventListener('load', this.#onLoad)
    clearInterval(this.#greeting)
  }

  seekTo(seconds: number) {
    if (!Number.isFinite(seconds) || seconds < 0) return
    if (this.started) this.sendSeek(seconds)
    else this.#pendingSeek = seconds
  }

  protected abstract greeting(): unknown
  protected abstract receive(message: Record<string, unknown>): void
  protected abstract sendSeek(seconds: number): void

  protected post(message: unknown) {
    // targetOrigin: if the frame was navigated elsewhere, nothing is delivered
    this.frame.contentWindow?.postMessage(message, this.#origin)
  }

  /** The player answered: stop greeting. */
  protected connected() {
    this.answered = true
    clearInterval(this.#greeting)
  }

  protected setState(state: PlayerState) {
    this.state = state
    if (state === 'playing' && !this.started) {
      this.started = true
      if (this.#pendingSeek !== null) this.sendSeek(this.#pendingSeek)
      this.#pendingSeek = null
    }
  }

  protected emit() {
    this.onTime(this.time ?? 0, this.state)
  }

  #greet() {
    this.answered = false
    clearInterval(this.#greeting)
    this.post(this.greeting())
    let left = Math.ceil(this.greetFor / this.greetEvery)
    this.#greeting = setInterval(() => {
      if (--left <= 0) clearInterval(this.#greeting)
      this.post(this.greeting())
    }, this.greetEvery)
  }

  /** False while the frame still holds its first about:blank (posting there only logs errors). */
  #playerLoaded() {
    try {
      return this.frame.contentWindow?.location.href !== 'about:blank'
    } catch {
      return true // cross-origin: the player's page is there
    }
  }

  /** A reloaded frame is a new player that needs greeting again. */
  #onLoad = () => {
    this.#greet()
  }

  #onMessage = (event: Event) => {
    const { source, origin, data } = event as MessageEvent
    if (!source || source !== this.frame.contentWindow || origin !== this.#origin) return
    const message = parseMessage(data)
    if (message) this.receive(message)
  }
}

let nextWidgetId = 1

const YOUTUBE_STATES: Record<number, PlayerState> = { 0: 'ended', 1: 'playing', 2: 'paused', 3: 'buffering' }

/**
 * YouTube's iframe protocol, spoken directly (no script from YouTube): `listening` until the player
 * answers, then `infoDelivery` messages carry the current time, state and duration (often only the
 * fields that changed). Unstarted (-1) and cued (5) count as paused.
 */
export class YouTubeAdapter extends FrameAdapter {
  readonly #id = nextWidgetId++

  protected greeting() {
    return JSON.stringify({ event: 'listening', id: this.#id, channel: 'widget' })
  }

  protected sendSeek(seconds: number) {
    this.#command('seekTo', [seconds, true])
  }

  protected receive(message: Record<string, unknown>) {
    switch (message.event) {
      case 'initialDelivery':
      case 'onReady':
      case 'infoDelivery': {
        const first = !this.answered
        if (first) this.connected()
        // the page's own listener for state changes, as YouTube's script registers it
        if (first) this.#command('addEventListener', ['onStateChange'])
        this.#merge(message.info)
        this.emit()
        break
      }
      case 'onStateChange':
        if (typeof message.info === 'number') {
          this.setState(YOUTUBE_STATES[message.info] ?? 'paused')
          this.emit()
        }
        break
    }
  }

  #merge(info: unknown) {
    if (typeof info !== 'object' || info === null) return
    const fields = info as Record<string, unknown>
    this.time = nonNegative(fields.currentTime) ?? this.time
    this.playerDuration = positive(fields.duration) ?? this.playerDuration
    if (typeof fields.playerState === 'number') this.setState(YOUTUBE_STATES[fields.playerState] ?? 'paused')
  }

  #command(func: string, args: unknown[]) {
    this.post(JSON.stringify({ event: 'command', func, args, id: this.#id, channel: 'widget' }))
  }
}

const VIMEO_EVENTS = ['timeupdate', 'play', 'playing', 'pause', 'ended', 'seeked', 'bufferstart', 'bufferend']

/**
 * Vimeo's player protocol: `ping` until it reports `ready` (it may have loaded before the page's
 * script ran), then subscribe to its events; `timeupdate` carries `seconds` and `duration`.
 */
export class VimeoAdapter extends FrameAdapter {
  #beforeBuffering: PlayerState = 'paused'

  protected greeting() {
    return { method: 'ping' }
  }

  protected sendSeek(seconds: number) {
    this.post({ method: 'setCurrentTime', value: seconds })
  }

  protected receive(message: Record<string, unknown>) {
    if (message.event === 'ready') {
      if (this.answered) return
      this.connected()
      for (const name of VIMEO_EVENTS) this.post({ method: 'addEventListener', value: name })
      this.post({ method: 'getDuration' })
      this.post({ method: 'getCurrentTime' })
      this.emit()
      return
    }
    if (message.method === 'getDuration' || message.method === 'getCurrentTime') {
      if (message.method === 'getDuration') this.playerDuration = positive(message.value) ?? this.playerDuration
      else this.time = nonNegative(message.value) ?? this.time
      this.emit()
      return
    }
    if (typeof message.event !== 'string' || !VIMEO_EVENTS.includes(message.event)) return
    const data =
      typeof message.data === 'object' && message.data !== null ? (message.data as Record<string, unknown>) : {}
    this.time = nonNegative(data.seconds) ?? this.time
    this.playerDuration = positive(data.duration) ?? this.playerDuration
    switch (message.event) {
      case 'play':
      case 'playing':
        this.setState('playing')
        break
      case 'pause':
        this.setState('paused')
        break
      case 'ended':
        this.setState('ended')
        break
      case 'bufferstart':
        if (this.state !== 'buffering') this.#beforeBuffering = this.state
        this.setState('buffering')
        break
      case 'bufferend':
        if (this.state === 'buffering') this.setState(this.#beforeBuffering)
        break
    }
    this.emit()
  }
}

const VIDEO_EVENTS = [
  'loadedmetadata',
  'durationchange',
  'timeupdate',
  'play',
  'playing',
  'pause',
  'waiting',
  'seeked',
  'ended',
] as const

/** A plain `<video>`: its own events, and its currentTime read once a second while playing. */
export class Html5Adapter implements PlayerAdapter {
  #onTime: TimeListener = noop
  #waiting = false
  #poll: ReturnType<typeof setInterval> | undefined

  constructor(
    private readonly video: HTMLVideoElement,
    readonly pollEvery = 1000,
  ) {}

  get duration() {
    return positive(this.video.duration)
  }

  start(onTime: TimeListener) {
    this.#onTime = onTime
    for (const name of VIDEO_EVENTS) this.video.addEventListener(name, this.#onEvent)
    // it may have loaded, or even started, before the page's script ran
    if (this.video.readyState >= 1) this.#report()
    if (this.#state() === 'playing') this.#startPolling()
  }

  stop() {
    this.#onTime = noop
    for (const name of VIDEO_EVENTS) this.video.removeEventListener(name, this.#onEvent)
    clearInterval(this.#poll)
    this.#poll = undefined
  }

  seekTo(seconds: number) {
    if (!Number.isFinite(seconds) || seconds < 0) return
    // setting currentTime does not start playback; before metadata it has nothing to seek in
    if (this.video.readyState >= 1) this.video.currentTime = seconds
    else {
      const seek = () => {
        this.video.currentTime = seconds
      }
      this.video.addEventListener('loadedmetadata', seek, { once: true })
    }
  }

  #state(): PlayerState {
    if (this.video.ended) return 'ended'
    if (this.video.paused) return 'paused'
    return this.#waiting ? 'buffering' : 'playing'
  }

  #report() {
    this.#onTime(this.video.currentTime, this.#state())
  }

  #startPolling() {
    if (this.#poll === undefined) this.#poll = setInterval(() => this.#report(), this.pollEvery)
  }

  #onEvent = (event: Event) => {
    if (event.type === 'waiting') this.#waiting = true
    else if (event.type === 'playing' || event.type === 'pause' || event.type === 'seeked') this.#waiting = false
    if (this.#state() === 'playing') this.#startPolling()
    else {
      clearInterval(this.#poll)
      this.#poll = undefined
    }
    this.#report()
  }
}

/** The adapter for a provider's element, or null when it cannot be tracked. */
export function createAdapter(
  provider: VideoProvider,
  element: HTMLIFrameElement | HTMLVideoElement | null,
): PlayerAdapter | null {
  if (!element) return null
  if (provider === 'html5' && element instanceof HTMLVideoElement) return new Html5Adapter(element)
  if (element instanceof HTMLIFrameElement) {
    if (provider === 'youtube') return new YouTubeAdapter(element)
    if (provider === 'vimeo') return new VimeoAdapter(element)
  }
  return null
}
