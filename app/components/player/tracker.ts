/** Whole seconds `[start, end)` of a video. */
export type WatchedRange = [start: number, end: number]

interface WatchTrackerOptions {
  /** The video's length in seconds, when known: nothing at or beyond it is counted. */
  duration?: number | null
  /** The largest move of the playhead between two samples that can still be play (s). */
  maxStep?: number
  /** The fastest playback rate the players offer that we accept (×). */
  maxRate?: number
  /** Allowance for late or early delivery of a sample (s of media time). */
  slack?: number
  /** A backward move no larger than this is a late sample, not a seek (s). */
  jitter?: number
  /** Monotonic wall clock in milliseconds, used when `sample` is given no time of observation. */
  now?: () => number
}

/**
 * Where counting resumes from: the playhead `time`, first seen there at `at`; while it stayed
 * there, the first report of playing (`playingFrom`) and the first report of not playing after
 * that (`stoppedAt`); `byPlay` when normal play brought the playhead there.
 */
type Anchor = { time: number; at: number; playingFrom: number | null; stoppedAt: number | null; byPlay: boolean }

/**
 * Turns playhead samples into the seconds really played. Counting follows the media clock only,
 * never the wall clock: a second `s` counts when the playhead moves forward from inside `s` to
 * `s + 1` or beyond by normal play, between the place it was last seen and the next one, which means
 *   - the player reported playing at the new place, or while the playhead was at the old one
 *     (players often report a pause with the old time, then the new time as paused: the move in
 *     between was still play; a move with no playing report at all is a seek made while paused);
 *   - the move is at most `maxStep` (2.5 s): anything larger is a seek, even when as much wall
 *     time went by, because a pause we missed followed by a seek looks exactly like that;
 *   - the move fits, at `maxRate` (2×), the wall time the player can have been playing since the
 *     old place was seen (up to the first report of a pause, if one came), plus an allowance of
 *     `slack` seconds for late or bunched deliveries. The allowance is a small bucket
 *     refilled at `maxRate`, so frequent samples cannot add it up: over any stretch nothing counts
 *     faster than 2× plus `slack`. This catches small seeks that `maxStep` alone lets through.
 * A long wall gap with a small move (say 10.8 to 11.3 a minute later: a pause we missed, or
 * buffering) still counts the second crossed, since the playhead did cross it by play; time that
 * merely passed adds nothing. A seek, either way, counts nothing and the playhead's new place is
 * where counting resumes, so a replay counts again here; the server keeps the unique seconds.
 */
export class WatchTracker {
  #duration: number | null = null
  readonly #maxStep: number
  readonly #maxRate: number
  readonly #slack: number
  readonly #jitter: number
  readonly #now: () => number
  #anchor: Anchor | null = null
  /** When the last accepted sample was observed. */
  #lastAt = Number.NEGATIVE_INFINITY
  #position: number | null = null
  #ranges: WatchedRange[] = []
  /** Media seconds of allowance carried from earlier samples (0…slack). */
  #carry: number

  constructor(options: WatchTrackerOptions = {}) {
    this.#maxStep = options.maxStep ?? 2.5
    this.#maxRate = options.maxRate ?? 2
    this.#slack = options.slack ?? 0.75
    this.#jitter = options.jitter ?? 0.5
    this.#now = options.now ?? (() => performance.now())
    this.#carry = this.#slack
    this.duration = options.duration ?? null
  }

  /** The video's length in seconds (null when unknown). */
  get duration(): number | null {
    return this.#duration
  }

  set duration(seconds: number | null) {
    this.#duration = seconds !== null && Number.isFinite(seconds) && seconds > 0 ? seconds : null
  }

  /** The last sampled playhead in whole seconds (null before the first sample). */
  get position(): number | null {
    return this.#position
  }

  /** Whether seconds are waiting to be taken. */
  get hasPending(): boolean {
    return this.#ranges.length > 0
  }

  /** A playhead observation: `time` in seconds, `at` when it was observed (ms, same clock as `now`). */
  sample(time: number, playing: boolean, at: number = this.#now()): void {
    if (!Number.isFinite(time) || time < 0 || !Number.isFinite(at)) return
    if (at < this.#lastAt) return // delivered out of order
    const anchor = this.#anchor
    const move = anchor ? time - anchor.time : 0
    if (anchor && move < 0 && -move <= this.#jitter) return // a late sample, not a seek back
    this.#lastAt = at
    if (anchor && move === 0) {
      if (playing) {
        anchor.playingFrom ??= at
        anchor.stoppedAt = null
      } else if (anchor.playingFrom !== null) {
        anchor.stoppedAt ??= at
      }
      return
    }
    const byPlay = anchor !== null && move > 0 && this.#isPlay(anchor, time, playing, at)
    if (anchor && byPlay) this.#count(anchor.time, time, Math.floor)
    this.#anchor = { time, at, playingFrom: playing ? at : null, stoppedAt: null, byPlay }
    this.#position = this.#floorWithin(time)
  }

  /**
   * The video ended at `time` (default: its duration, or the last sample): the last second counts
   * even when it is only partly there (a 60.4 s video ends inside second 60), if play reached it.
   */
  ended(time?: number, at: number = this.#now()): void {
    const anchor = this.#anchor
    const end = time !== undefined && Number.isFinite(time) ? time : (this.#duration ?? anchor?.time)
    if (end === undefined || end < 0 || !Number.isFinite(at) || at < this.#lastAt) return
    this.#lastAt = at
    // a <video> reports `pause` at the end before `ended`: arriving there by play is enough
    const reached = anchor !== null && (anchor.playingFrom !== null || anchor.byPlay) && end >= anchor.time
    if (anchor && reached && this.#isPlay(anchor, end, true, at)) this.#count(anchor.time, end, Math.ceil)
    this.#anchor = { time: end, at, playingFrom: null, stoppedAt: null, byPlay: false }
    this.#position = this.#floorWithin(end)
  }

  /** The seconds counted since the last take, merged and sorted; clears them. */
  take(): WatchedRange[] {
    const ranges = mergeRanges(this.#ranges)
    this.#ranges = []
    return ranges
  }

  /** Puts back ranges that could not be delivered, so the next take sends them again. */
  restore(ranges: readonly WatchedRange[]): void {
    this.#ranges = mergeRanges([...ranges, ...this.#ranges])
  }

  /** Whether the move from `anchor` to `time` was normal play; spends the rate allowance if so. */
  #isPlay(anchor: Anchor, time: number, playing: boolean, at: number): boolean {
    if (!playing && anchor.playingFrom === null) return false
    // the wall time the player can have been playing: not before the old place was seen (or play
    // was reported there), not after a pause was reported there, unless it reports playing now
    const from = anchor.playingFrom ?? anchor.at
    const until = playing ? at : (anchor.stoppedAt ?? at)
    const move = time - anchor.time
    const available = this.#carry + (Math.max(0, until - from) / 1000) * this.#maxRate
    const play = move <= this.#maxStep && move <= available
    this.#carry = Math.min(this.#slack, play ? available - move : available)
    return play
  }

  /** Counts the seconds from the one holding `from` up to `to` (floor: only those completed). */
  #count(from: number, to: number, round: (n: number) => number) {
    const start = Math.floor(from)
    let end = round(to)
    if (this.#duration !== null) end = Math.min(end, Math.ceil(this.#duration))
    if (end <= start) return
    const last = this.#ranges[this.#ranges.length - 1]
    if (last && last[1] === start) last[1] = end
    else this.#ranges.push([start, end])
    if (this.#ranges.length > 256) this.#ranges = mergeRanges(this.#ranges)
  }

  #floorWithin(time: number): number {
    const whole = Math.floor(time)
    return this.#duration === null ? whole : Math.min(whole, Math.floor(this.#duration))
  }
}

/** Sorted, non-overlapping, with touching ranges joined; empty ranges dropped. */
export function mergeRanges(ranges: readonly WatchedRange[]): WatchedRange[] {
  const sorted = ranges.filter(([start, end]) => end > start).sort((a, b) => a[0] - b[0] || a[1] - b[1])
  const merged: WatchedRange[] = []
  for (const [start, end] of sorted) {
    const last = merged[merged.length - 1]
    if (last && start <= last[1]) last[1] = Math.max(last[1], end)
    else merged.push([start, end])
  }
  return merged
}
