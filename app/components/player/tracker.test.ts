import { describe, expect, it } from 'vitest'
import { mergeRanges, WatchTracker, type WatchedRange } from './tracker.ts'

/** A tracker on a fake wall clock, with helpers that feed it like a player would. */
function setup(duration: number | null = null) {
  let wall = 1_000_000 // ms
  const tracker = new WatchTracker({ duration, now: () => wall })
  const at = () => wall
  const wait = (seconds: number) => {
    wall += seconds * 1000
  }
  /** Plays from `from` to `to` at `rate`, sampling every `every` seconds of wall time. */
  const play = (from: number, to: number, { rate = 1, every = 0.25 } = {}) => {
    let time = from
    tracker.sample(time, true)
    while (time < to) {
      wait(every)
      time = Math.min(to, time + every * rate)
      tracker.sample(time, true)
    }
  }
  return { tracker, at, wait, play }
}

/**
 * Play to 5.97 s, then a pause reported YouTube's way: onStateChange (paused) carries the last known
 * time, infoDelivery the new one (6.26 s) just after.
 */
function pauseReportedLate({ tracker, play, wait }: Pick<ReturnType<typeof setup>, 'tracker' | 'play' | 'wait'>) {
  play(0, 5.97)
  wait(0.148)
  tracker.sample(5.97, false)
  wait(0.001)
  tracker.sample(6.26, false)
}

const total = (ranges: WatchedRange[]) => ranges.reduce((sum, [start, end]) => sum + end - start, 0)

describe('WatchTracker: normal play', () => {
  it('counts each second the playhead passes through, sampled four times a second', () => {
    const { tracker, play } = setup()
    play(0, 10)
    expect(tracker.take()).toEqual([[0, 10]])
    expect(tracker.position).toBe(10)
  })

  it('counts the same when sampled once a second', () => {
    const { tracker, play } = setup()
    play(0, 10, { every: 1 })
    expect(tracker.take()).toEqual([[0, 10]])
  })

  it('does not count the second the playhead is still inside', () => {
    const { tracker, play } = setup()
    play(0, 4.75)
    expect(tracker.take()).toEqual([[0, 4]])
    expect(tracker.position).toBe(4)
  })

  it('counts nothing from a single sample, and starts counting from the first one', () => {
    const { tracker, play } = setup()
    tracker.sample(3.2, true)
    expect(tracker.take()).toEqual([])
    expect(tracker.position).toBe(3)
    play(3.2, 6.2)
    expect(tracker.take()).toEqual([[3, 6]])
  })

  it('handles irregular fractional times', () => {
    const { tracker, wait } = setup()
    for (const [time, gap] of [
      [0.13, 0],
      [0.61, 0.5],
      [1.07, 0.45],
      [1.59, 0.5],
      [2.02, 0.45],
      [2.99, 1],
      [3.0, 0.01],
    ] as const) {
      wait(gap)
      tracker.sample(time, true)
    }
    expect(tracker.take()).toEqual([[0, 3]])
    expect(tracker.position).toBe(3)
  })
})

describe('WatchTracker: playback speed', () => {
  it('counts 2× speed in full, sampled four times or once a second', () => {
    const fast = setup()
    fast.play(0, 20, { rate: 2 })
    expect(fast.tracker.take()).toEqual([[0, 20]])

    const slow = setup()
    slow.play(0, 20, { rate: 2, every: 1 })
    expect(slow.tracker.take()).toEqual([[0, 20]])
  })

  it('counts half speed in full', () => {
    const { tracker, play } = setup()
    play(0, 5, { rate: 0.5 })
    expect(tracker.take()).toEqual([[0, 5]])
  })

  it('never counts much faster than 2×, however often it is sampled', () => {
    const { tracker, play } = setup()
    play(0, 90, { rate: 3 }) // 30 s of wall time
    const counted = total(tracker.take())
    expect(counted).toBeGreaterThan(30)
    expect(counted).toBeLessThanOrEqual(2 * 30 + 1)
  })

  it('counts nothing at 3× sampled once a second: every step is longer than 2.5 s', () => {
    const { tracker, play } = setup()
    play(0, 30, { rate: 3, every: 1 })
    expect(tracker.take()).toEqual([])
  })
})

describe('WatchTracker: seeking', () => {
  it('does not count what a seek ahead skips', () => {
    const { tracker, play, wait } = setup()
    play(0, 5)
    wait(0.25)
    play(30, 35)
    expect(tracker.take()).toEqual([
      [0, 5],
      [30, 35],
    ])
  })

  it('counts the landing second when play carries on from inside it', () => {
    const { tracker, play, wait } = setup()
    play(0, 2)
    wait(0.25)
    play(40.6, 42.1)
    expect(tracker.take()).toEqual([
      [0, 2],
      [40, 42],
    ])
  })

  it('does not count a small seek that is too fast for play, though it is under 2.5 s', () => {
    const { tracker, play, wait } = setup()
    play(0, 10)
    wait(0.1)
    tracker.sample(12.4, true) // 2.4 s of video in 0.1 s
    play(12.4, 14)
    expect(tracker.take()).toEqual([
      [0, 10],
      [12, 14],
    ])
  })

  it('counts a replay again after a seek back (the server keeps unique seconds)', () => {
    const { tracker, play, wait } = setup()
    play(0, 10)
    expect(tracker.take()).toEqual([[0, 10]])
    wait(0.25)
    play(3, 6)
    expect(tracker.take()).toEqual([[3, 6]])
  })

  it('merges a replay inside one take', () => {
    const { tracker, play, wait } = setup()
    play(0, 10)
    wait(0.25)
    play(4, 12)
    expect(tracker.take()).toEqual([[0, 12]])
  })

  it('moves the position with the seek', () => {
    const { tracker, play, wait } = setup()
    play(0, 10)
    wait(0.25)
    tracker.sample(2.5, false)
    expect(tracker.position).toBe(2)
  })
})

describe('WatchTracker: pauses', () => {
  it('counts nothing while paused and resumes counting from the paused spot', () => {
    const { tracker, play, wait } = setup()
    play(0, 4.5)
    tracker.sample(4.5, false)
    for (let i = 0; i < 60; i++) {
      wait(1)
      tracker.sample(4.5, false)
    }
    expect(tracker.take()).toEqual([[0, 4]])
    wait(0.25)
    play(4.5, 7) // the first sample after play is pressed is still at 4.5
    expect(tracker.take()).toEqual([[4, 7]])
  })

  it('counts the play between the last paused sample and the first playing one', () => {
    const { tracker, wait } = setup()
    tracker.sample(9.8, false)
    wait(30)
    tracker.sample(9.8, false)
    wait(0.5)
    tracker.sample(10.3, true)
    expect(tracker.take()).toEqual([[9, 10]])
  })

  it('does not count a seek made while paused', () => {
    const { tracker, play, wait } = setup()
    play(0, 4.5)
    tracker.sample(4.5, false)
    wait(5)
    tracker.sample(6.5, false) // dragged the playhead 2 s while paused
    wait(0.25)
    play(6.5, 8)
    expect(tracker.take()).toEqual([
      [0, 4],
      [6, 8],
    ])
  })

  it('counts the play between a pause reported with the old time and the new time that follows', () => {
    const { tracker, play, wait } = setup()
    pauseReportedLate({ play, wait, tracker })
    expect(tracker.take()).toEqual([[0, 6]])
    expect(tracker.position).toBe(6)
  })

  it('still refuses a seek made while paused after such a report', () => {
    const { tracker, play, wait } = setup()
    pauseReportedLate({ play, wait, tracker })
    wait(3)
    tracker.sample(6.26, false)
    wait(2)
    tracker.sample(7.9, false) // dragged while paused
    wait(0.25)
    play(7.9, 9)
    expect(tracker.take()).toEqual([
      [0, 6],
      [7, 9],
    ])
  })

  it('refuses a move after a pause report that is longer than the play before it allows', () => {
    const { tracker, play, wait } = setup()
    play(0, 5.5)
    wait(0.1)
    tracker.sample(5.5, false) // paused 0.1 s after the last playing report
    wait(4)
    tracker.sample(7.5, false) // 2 s further: only a seek explains it
    expect(tracker.take()).toEqual([[0, 5]])
  })

  it('counts nothing for a jump that only a missed pause and a seek explain, even at 1× pace', () => {
    const { tracker, wait } = setup()
    tracker.sample(10, true)
    wait(30)
    tracker.sample(40, true) // 30 s of video in 30 s: played, or paused 30 s then sought
    wait(1)
    tracker.sample(41, true)
    expect(tracker.take()).toEqual([[40, 41]])
  })

  it('counts the second crossed after a long gap with a small move (a missed pause adds nothing)', () => {
    const { tracker, wait } = setup()
    tracker.sample(10.8, true)
    wait(60)
    tracker.sample(11.3, true)
    expect(tracker.take()).toEqual([[10, 11]])
  })

  it('keeps counting through buffering', () => {
    const { tracker, play, wait } = setup()
    play(0, 3.5)
    tracker.sample(3.5, false) // buffering
    wait(4)
    tracker.sample(3.5, false)
    wait(0.25)
    play(3.5, 6)
    expect(tracker.take()).toEqual([[0, 6]])
  })
})

describe('WatchTracker: end of the video', () => {
  it('counts the final partial second when the video ends', () => {
    const { tracker, play, wait } = setup(60.4)
    play(57, 60.25)
    wait(0.15)
    tracker.ended(60.4)
    expect(tracker.take()).toEqual([[57, 61]])
    expect(tracker.position).toBe(60)
  })

  it('uses the duration when ended() is given no time', () => {
    const { tracker, play, wait } = setup(60.4)
    play(59, 60.25)
    wait(0.15)
    tracker.ended()
    expect(tracker.take()).toEqual([[59, 61]])
  })

  it('counts the last second when a <video> reports pause at the end before ended', () => {
    const { tracker, play, wait } = setup(60.4)
    play(59, 60.25)
    wait(0.15)
    tracker.sample(60.4, false)
    tracker.ended(60.4)
    expect(tracker.take()).toEqual([[59, 61]])
  })

  it('counts nothing when a seek lands on the end', () => {
    const { tracker, play, wait } = setup(60.4)
    play(0, 2)
    wait(0.25)
    tracker.ended(60.4)
    expect(tracker.take()).toEqual([[0, 2]])
    expect(tracker.position).toBe(60)
  })

  it('counts the last second when the player says ended before giving the final time', () => {
    const { tracker, play, wait } = setup(60.4)
    play(58, 59.9)
    wait(0.2)
    tracker.ended(60.4) // the page ends at the duration, not at the stale 59.9
    expect(tracker.take()).toEqual([[58, 61]])
  })

  it('counts the end only once when told twice', () => {
    const { tracker, play, wait } = setup(60.4)
    play(59, 60.25)
    wait(0.15)
    tracker.ended(60.4)
    tracker.ended(60.4)
    expect(tracker.take()).toEqual([[59, 61]])
  })

  it('never counts beyond the duration it is given (the server’s, in whole seconds)', () => {
    const { tracker, play, wait } = setup(60)
    play(58, 60.3)
    wait(0.1)
    tracker.ended(60.4)
    expect(tracker.take()).toEqual([[58, 60]])
    expect(tracker.position).toBe(60)
  })

  it('learns the duration late', () => {
    const { tracker, play } = setup()
    tracker.duration = 5
    play(0, 6)
    expect(tracker.take()).toEqual([[0, 5]])
    tracker.duration = Number.NaN
    expect(tracker.duration).toBeNull()
  })

  it('counts a replay from the start after the end', () => {
    const { tracker, play, wait } = setup(10)
    play(8, 10)
    tracker.ended(10)
    tracker.take()
    wait(2)
    tracker.sample(0, false)
    wait(0.25)
    play(0, 3)
    expect(tracker.take()).toEqual([[0, 3]])
  })
})

describe('WatchTracker: bad samples', () => {
  it('ignores NaN, infinite and negative times', () => {
    const { tracker, play, wait } = setup()
    play(0, 3)
    for (const bad of [Number.NaN, Number.POSITIVE_INFINITY, -1]) {
      wait(0.25)
      tracker.sample(bad, true)
    }
    expect(tracker.position).toBe(3)
    wait(0.25)
    tracker.sample(3.75, true)
    wait(0.25)
    tracker.sample(4.0, true)
    expect(tracker.take()).toEqual([[0, 4]])
  })

  it('ignores samples observed before the last one (delivered out of order)', () => {
    const { tracker, at, wait } = setup()
    tracker.sample(5.2, true)
    wait(0.7)
    const earlier = at()
    wait(0.6)
    tracker.sample(6.5, true)
    wait(0.5)
    tracker.sample(7.0, true)
    expect(tracker.take()).toEqual([[5, 7]])
    tracker.sample(5.9, true, earlier) // observed before 6.5, delivered after 7.0
    expect(tracker.position).toBe(7)
    wait(0.5)
    tracker.sample(7.5, true)
    expect(tracker.take()).toEqual([])
    expect(tracker.position).toBe(7)
  })

  it('treats a small step back as a late sample, neither a seek nor a replay', () => {
    const { tracker, wait } = setup()
    tracker.sample(10.9, true)
    wait(0.25)
    tracker.sample(11.15, true)
    expect(tracker.take()).toEqual([[10, 11]])
    wait(0.05)
    tracker.sample(10.95, true) // a stale value
    expect(tracker.position).toBe(11)
    wait(0.2)
    tracker.sample(11.4, true)
    wait(0.25)
    tracker.sample(11.65, true)
    expect(tracker.take()).toEqual([])
  })

  it('ignores an ended() with no time and nothing known', () => {
    const { tracker } = setup()
    tracker.ended()
    expect(tracker.take()).toEqual([])
    expect(tracker.position).toBeNull()
  })
})

describe('WatchTracker: take and restore', () => {
  it('take returns what was gathered since the last take, and clears it', () => {
    const { tracker, play, wait } = setup()
    play(0, 5)
    expect(tracker.hasPending).toBe(true)
    expect(tracker.take()).toEqual([[0, 5]])
    expect(tracker.hasPending).toBe(false)
    expect(tracker.take()).toEqual([])
    wait(0.25)
    play(5, 8)
    expect(tracker.take()).toEqual([[5, 8]])
  })

  it('restore puts undelivered ranges back, merged with what came since', () => {
    const { tracker, play, wait } = setup()
    play(0, 5)
    const lost = tracker.take()
    wait(0.25)
    play(5, 8)
    tracker.restore(lost)
    expect(tracker.take()).toEqual([[0, 8]])
  })
})

describe('mergeRanges', () => {
  it('sorts, joins touching and overlapping ranges and drops empty ones', () => {
    expect(
      mergeRanges([
        [10, 12],
        [0, 3],
        [3, 5],
        [4, 6],
        [8, 8],
        [11, 15],
      ]),
    ).toEqual([
      [0, 6],
      [10, 15],
    ])
    expect(mergeRanges([])).toEqual([])
  })

  it('does not change its input', () => {
    const input: WatchedRange[] = [
      [3, 5],
      [0, 4],
    ]
    mergeRanges(input)
    expect(input).toEqual([
      [3, 5],
      [0, 4],
    ])
  })
})
