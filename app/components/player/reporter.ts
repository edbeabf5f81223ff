import type { PlayerState } from './adapters.ts'
import { isPrivacyEnhanced } from './provider.ts'
import { WatchTracker, type WatchedRange } from './tracker.ts'

export const PROGRESS_URL = '/api/category/videoProgress'
export const AUDIT_URL = '/api/category/videoAudit'

/** The server's answer to a heartbeat. */
export type ProgressAnswer = {
  watchedSeconds: number
  completed: boolean
  lastPosition: number
  duration: number | null
}

type ProgressHeartbeat = {
  courseId: string
  videoId: string
  watched: WatchedRange[]
  position: number
  /** the player's own length, sent only while the portal does not know the video's */
  duration?: number
}

/** The server takes at most this many seconds in one heartbeat; more waits for the next ones. */
const MAX_SECONDS_PER_HEARTBEAT = 60

/** The first `max` seconds of the ranges, and the rest. */
export function splitRanges(ranges: readonly WatchedRange[], max: number): [WatchedRange[], WatchedRange[]] {
  const now: WatchedRange[] = []
  const later: WatchedRange[] = []
  let left = max
  for (const [start, end] of ranges) {
    if (left <= 0) later.push([start, end])
    else if (end - start <= left) {
      now.push([start, end])
      left -= end - start
    } else {
      now.push([start, start + left])
      later.push([start + left, end])
      left = 0
    }
  }
  return [now, later]
}

export interface ProgressReporterOptions {
  courseId: string
  videoId: string
  userId: string
  embedUrl: string
  /** The video's duration as the portal knows it (seconds), or null. */
  duration: number | null
  /** Where the learner stopped last time (seconds), or null. */
  lastPosition: number | null
  /** Moves the player's playhead (the adapter's seekTo). */
  seekTo: (seconds: number) => void
  /** The duration the player reports, when it knows it. */
  playerDuration?: () => number | null
  onProgress?: (answer: ProgressAnswer) => void
  fetch?: typeof fetch
  /** Monotonic clock in ms. */
  now?: () => number
  log?: (message: string, detail?: unknown) => void
  /** Seconds of playing between two heartbeats. */
  heartbeatEvery?: number
  /** Least time between two audits (ms). */
  auditEvery?: number
  /** Wait after a pause or the end before the heartbeat, for the player's last time report (ms). */
  settleDelay?: number
}

/** Statuses worth trying again with the next heartbeat; any other refusal will not change. */
function retryable(status: number) {
  return status === 408 || status === 425 || status === 429 || status >= 500
}

/**
 * Between a player adapter and the server: feeds the tracker, sends the heartbeats (every 10 s of
 * playing and 1 to 2 s into the first play, on pause and on ended, and when the page asks with `flush`), the
 * audits (privacy-enhanced host only, even seconds only, at most one per 10 s) and the resume seek.
 * Network trouble is only logged: undelivered seconds go back to the tracker and leave with the
 * next heartbeat.
 */
export class ProgressReporter {
  readonly tracker: WatchTracker
  readonly #options: ProgressReporterOptions
  readonly #fetch: typeof fetch
  readonly #now: () => number
  readonly #log: (message: string, detail?: unknown) => void
  readonly #audited: boolean
  #state: PlayerState | null = null
  #knownDuration: number | null
  #announced = false
  #resumeDecided = false
  #playingSeconds = 0
  #sentPosition: number | null = null
  #inFlight = false
  #again = false
  #stopped = false
  #auditAt: number | null = null
  #soon: ReturnType<typeof setTimeout> | undefined

  constructor(options: ProgressReporterOptions) {
    this.#options = options
    this.#fetch = options.fetch ?? ((...args) => fetch(...args))
    this.#now = options.now ?? (() => performance.now())
    this.#log =
      options.log ?? ((message, detail) => console.warn(...(detail === undefined ? [message] : [message, detail])))
    this.#audited = isPrivacyEnhanced(options.embedUrl)
    this.#knownDuration = options.duration
    this.tracker = new WatchTracker({ duration: options.duration, now: this.#now })
  }

  /** The duration to measure against: the portal's, else the player's. */
  get duration(): number | null {
    return this.#knownDuration ?? this.#options.playerDuration?.() ?? null
  }

  /** What the adapter reports. */
  onTime(time: number, state: PlayerState, at: number = this.#now()): void {
    const previous = this.#state
    this.#state = state
    if (this.#knownDuration === null) this.tracker.duration = this.#options.playerDuration?.() ?? null
    // near the end or not needs the duration: wait for it, or for play
    if (!this.#resumeDecided && (this.duration !== null || state !== 'paused')) {
      this.#resumeDecided = true
      this.#resume()
    }

    if (state === 'ended') {
      if (previous !== 'ended') {
        // players may say "ended" before their last time report: the end is the duration
        this.tracker.ended(Math.max(time, this.#options.playerDuration?.() ?? 0), at)
        this.#heartbeatSoon()
      }
      return
    }
    this.tracker.sample(time, state === 'playing', at)
    if (state === 'playing') this.#audit(time, at)
    else if (state === 'paused' && (previous === 'playing' || previous === 'buffering')) {
      this.#heartbeatSoon()
    }
  }

  /** Called once a second. */
  tick(): void {
    if (this.#state !== 'playing') return
    this.#playingSeconds += 1
    // an early first heartbeat (on the second tick of play) tells the server when this viewing
    // started; not on the first, so that a resume seek has landed and the position is not the start
    const first = !this.#announced && this.#playingSeconds >= 2
    if (first || this.#playingSeconds >= (this.#options.heartbeatEvery ?? 10)) this.#heartbeat()
  }

  /** Sends what is gathered now; `keepalive` when the page may be going away (hidden, unmounted). */
  flush(keepalive = false): Promise<void> {
    return this.#send(keepalive)
  }

  #heartbeat() {
    void this.#send(false)
  }

  /** Players report a pause with the old time, then the new one: let that arrive first. */
  #heartbeatSoon() {
    if (this.#soon === undefined) this.#soon = setTimeout(() => this.#heartbeat(), this.#options.settleDelay ?? 300)
  }

  /** Back where the learner stopped, unless that is the very start or the very end. */
  #resume() {
    const position = this.#options.lastPosition
    const duration = this.duration
    if (position === null || !(position > 3)) return
    if (duration !== null && position >= duration - 5) return
    this.#options.seekTo(position)
  }

  async #send(keepalive: boolean): Promise<void> {
    clearTimeout(this.#soon)
    this.#soon = undefined
    if (this.#stopped) return
    if (this.#inFlight && !keepalive) {
      this.#again = true // one at a time, so the server sees positions in order
      return
    }
    this.#playingSeconds = 0
    this.#announced = true
    // after an outage more may be waiting than one heartbeat carries: the rest goes with the next ones
    const [watched, later] = splitRanges(this.tracker.take(), MAX_SECONDS_PER_HEARTBEAT)
    this.tracker.restore(later)
    const position = this.tracker.position
    if (position === null || (watched.length === 0 && position === this.#sentPosition)) {
      this.tracker.restore(watched)
      return
    }
    const { courseId, videoId } = this.#options
    const heartbeat: ProgressHeartbeat = { courseId, videoId, watched, position }
    const playerDuration = this.#options.playerDuration?.()
    if (this.#knownDuration === null && playerDuration) heartbeat.duration = Math.ceil(playerDuration)
    // counted as sent at once: hidden and pagehide come together, and the second has nothing new
    const sentBefore = this.#sentPosition
    this.#sentPosition = position
    const undo = () => {
      this.tracker.restore(watched)
      if (this.#sentPosition === position) this.#sentPosition = sentBefore
    }
    if (!keepalive) this.#inFlight = true
    try {
      const response = await this.#fetch(PROGRESS_URL, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
        body: JSON.stringify(heartbeat),
        credentials: 'same-origin',
        keepalive,
      })
      if (response.ok) {
        const answer = (await response.json()) as ProgressAnswer
        if (answer.duration) this.#knownDuration = this.tracker.duration = answer.duration
        this.#options.onProgress?.(answer)
      } else if (retryable(response.status)) {
        undo()
        this.#log(`Video progress not saved yet (${response.status}); retrying with the next heartbeat.`)
      } else {
        // invalid or not allowed: sending the same again cannot succeed
        if (response.status === 401 || response.status === 403) this.#stopped = true
        this.#log(`Video progress refused (${response.status}).`, await this.#message(response))
      }
    } catch (error) {
      undo()
      this.#log('Video progress not saved yet; retrying with the next heartbeat.', error)
    } finally {
      if (!keepalive) {
        this.#inFlight = false
        if (this.#again) {
          this.#again = false
          this.#heartbeat()
        }
      }
    }
  }

  #audit(time: number, at: number) {
    if (!this.#audited || this.#stopped) return
    const second = Math.floor(time)
    if (second % 2 !== 0) return
    if (this.#auditAt !== null && at - this.#auditAt < (this.#options.auditEvery ?? 10_000)) return
    const duration = this.duration
    if (duration === null) return
    this.#auditAt = at
    const { userId, courseId, videoId } = this.#options
    const audit = {
      userId,
      courseId,
      videoId,
      videoDuration: String(Math.round(duration)),
      videoProgress: String(second),
    }
    void this.#fetch(AUDIT_URL, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
      body: JSON.stringify(audit),
      credentials: 'same-origin',
    }).then(
      async (response) => {
        if (!response.ok) this.#log(`Video audit refused (${response.status}).`, await this.#message(response))
      },
      (error: unknown) => this.#log('Video audit not sent.', error),
    )
  }

  async #message(response: Response): Promise<unknown> {
    try {
      return ((await response.json()) as { message?: unknown }).message
    } catch {
      return undefined
    }
  }
}
