import { describe, expect, it, vi } from 'vitest'
import type { PlayerState } from './adapters.ts'
import { AUDIT_URL, PROGRESS_URL, ProgressReporter, type ProgressReporterOptions } from './reporter.ts'

const NOCOOKIE = 'https://www.youtube-nocookie.com/embed/dQw4w9WgXcQ'
const STAND_IN = 'http://127.0.0.1:3211/embed/intro'

type Call = { url: string; body: Record<string, unknown>; keepalive: boolean }

/** A reporter on a fake clock, with a fake server that answers as `answer` says. */
function setup(options: Partial<ProgressReporterOptions> = {}) {
  let wall = 0
  const calls: Call[] = []
  let answer: (call: Call) => Response | Promise<Response> = () =>
    Response.json({ watchedSeconds: 1, completed: false, lastPosition: 0, duration: 120 })
  const fetch = vi.fn(async (url: RequestInfo | URL, init?: RequestInit) => {
    const call = { url: String(url), body: JSON.parse(String(init?.body)), keepalive: init?.keepalive ?? false }
    calls.push(call)
    return answer(call)
  })
  const log = vi.fn()
  const seekTo = vi.fn()
  const onProgress = vi.fn()
  const reporter = new ProgressReporter({
    courseId: 'c1',
    videoId: 'v1',
    userId: 'u1',
    embedUrl: STAND_IN,
    duration: 120,
    lastPosition: null,
    seekTo,
    onProgress,
    fetch: fetch as typeof globalThis.fetch,
    now: () => wall,
    log,
    settleDelay: 0,
    ...options,
  })
  let time = 0
  /** The player reports four times a second; the page ticks once a second. */
  const play = (seconds: number, from = time) => {
    time = from
    reporter.onTime(time, 'playing')
    for (let i = 1; i <= seconds * 4; i++) {
      wall += 250
      time += 0.25
      reporter.onTime(time, 'playing')
      if (i % 4 === 0) reporter.tick()
    }
  }
  const report = (state: PlayerState, at = time) => {
    time = at
    reporter.onTime(time, state)
  }
  const progress = () => calls.filter((c) => c.url === PROGRESS_URL).map((c) => c.body)
  const audits = () => calls.filter((c) => c.url === AUDIT_URL).map((c) => c.body)
  return {
    reporter,
    calls,
    fetch,
    log,
    seekTo,
    onProgress,
    play,
    report,
    progress,
    audits,
    wait: (seconds: number) => (wall += seconds * 1000),
    answerWith: (next: typeof answer) => (answer = next),
  }
}

/** Lets the fake server's answers be read. */
async function settle() {
  for (let i = 0; i < 5; i++) await new Promise((resolve) => setTimeout(resolve, 0))
}

describe('ProgressReporter: resume', () => {
  it('seeks to the last position on the player’s first report', () => {
    const { report, seekTo } = setup({ lastPosition: 95 })
    report('paused', 0)
    report('playing', 0)
    expect(seekTo).toHaveBeenCalledTimes(1)
    expect(seekTo).toHaveBeenCalledWith(95)
  })

  it('starts from the beginning when the last position is within 3 s of the start or 5 s of the end', () => {
    for (const lastPosition of [null, 0, 3, 115, 119]) {
      const { report, seekTo } = setup({ lastPosition })
      report('paused', 0)
      expect(seekTo).not.toHaveBeenCalled()
    }
    const { report, seekTo } = setup({ lastPosition: 114 })
    report('paused', 0)
    expect(seekTo).toHaveBeenCalledWith(114)
  })

  it('waits for a duration, or for play, before deciding', () => {
    let playerDuration: number | null = null
    const nearEnd = setup({ duration: null, lastPosition: 58, playerDuration: () => playerDuration })
    nearEnd.report('paused', 0) // onReady: no duration yet
    expect(nearEnd.seekTo).not.toHaveBeenCalled()
    playerDuration = 60
    nearEnd.report('paused', 0)
    nearEnd.report('playing', 0)
    expect(nearEnd.seekTo).not.toHaveBeenCalled()

    const unknown = setup({ duration: null, lastPosition: 58, playerDuration: () => null })
    unknown.report('paused', 0)
    expect(unknown.seekTo).not.toHaveBeenCalled()
    unknown.report('playing', 0)
    expect(unknown.seekTo).toHaveBeenCalledWith(58)
  })

  it('uses the player’s duration when the portal does not know it', () => {
    const { report, seekTo } = setup({ duration: null, lastPosition: 58, playerDuration: () => 60 })
    report('paused', 0)
    expect(seekTo).not.toHaveBeenCalled()
  })
})

describe('ProgressReporter: heartbeats', () => {
  it('sends one 2 s into the first play, then every 10 s of playing, with the seconds played', async () => {
    const { play, progress } = setup()
    play(2)
    await settle()
    expect(progress()).toEqual([{ courseId: 'c1', videoId: 'v1', watched: [[0, 2]], position: 2 }])
    play(9)
    await settle()
    expect(progress()).toHaveLength(1)
    play(1)
    await settle()
    expect(progress()[1]).toEqual({ courseId: 'c1', videoId: 'v1', watched: [[2, 12]], position: 12 })
  })

  it('sends one on pause and one on ended, the last partial second included', async () => {
    const { play, report, progress, reporter } = setup({ duration: null, playerDuration: () => 6.5 })
    play(1.5)
    report('paused')
    await settle()
    // the portal does not know this video's length yet: the player's goes along until it does
    expect(progress()).toEqual([{ courseId: 'c1', videoId: 'v1', watched: [[0, 1]], position: 1, duration: 7 }])
    play(4.75)
    report('ended', 6.5)
    report('ended', 6.5) // YouTube says it twice
    await settle()
    expect(progress().slice(1)).toEqual([{ courseId: 'c1', videoId: 'v1', watched: [[1, 7]], position: 6 }])
    expect(reporter.tracker.duration).toBe(120) // learnt from the server's answer
  })

  it('waits for the time report that follows a pause reported with the old time', async () => {
    const { play, report, progress, wait } = setup()
    play(5.75)
    wait(0.15)
    report('paused', 5.75) // onStateChange: the last known time
    wait(0.001)
    report('paused', 6.05) // infoDelivery: where it really stopped
    await settle()
    expect(progress().at(-1)).toEqual({ courseId: 'c1', videoId: 'v1', watched: [[2, 6]], position: 6 })
  })

  it('ends at the player’s duration when the player says ended before its last time report', async () => {
    const { play, report, progress } = setup({ duration: null, playerDuration: () => 8.4 })
    play(8.25)
    report('ended', 8.25)
    await settle()
    expect(progress().at(-1)).toMatchObject({ watched: [[2, 9]], position: 8 })
  })

  it('sends nothing when nothing changed', async () => {
    const { play, report, progress, reporter } = setup()
    play(3)
    report('paused')
    await settle()
    const sent = progress().length
    await reporter.flush(true)
    report('paused')
    await settle()
    expect(progress()).toHaveLength(sent)
  })

  it('sends a position that failed to arrive again, even with no new seconds', async () => {
    const { play, report, progress, answerWith, reporter } = setup()
    play(2)
    await settle()
    answerWith(() => Promise.reject(new TypeError('Failed to fetch')))
    report('paused', 2)
    report('paused', 40) // sought while paused: a new position, no new seconds
    await reporter.flush(true)
    answerWith(() => Response.json({ watchedSeconds: 2, completed: false, lastPosition: 40, duration: 120 }))
    await reporter.flush(true)
    await reporter.flush(true)
    expect(progress().slice(1)).toEqual([
      { courseId: 'c1', videoId: 'v1', watched: [], position: 40 },
      { courseId: 'c1', videoId: 'v1', watched: [], position: 40 },
    ])
  })

  it('does not repeat a heartbeat when hidden and pagehide come together', async () => {
    const { play, reporter, progress } = setup()
    play(1.5)
    const first = reporter.flush(true)
    const second = reporter.flush(true)
    await Promise.all([first, second])
    expect(progress()).toHaveLength(1)
  })

  it('flushes with keepalive when asked (page hidden, unmount)', async () => {
    const { play, reporter, calls } = setup()
    play(1.5)
    await reporter.flush(true)
    expect(calls.at(-1)).toMatchObject({ url: PROGRESS_URL, keepalive: true, body: { watched: [[0, 1]], position: 1 } })
  })

  it('passes each answer to onProgress', async () => {
    const { play, onProgress, answerWith } = setup()
    answerWith(() => Response.json({ watchedSeconds: 108, completed: true, lastPosition: 2, duration: 120 }))
    play(2)
    await settle()
    expect(onProgress).toHaveBeenCalledWith({ watchedSeconds: 108, completed: true, lastPosition: 2, duration: 120 })
  })

  it('keeps the seconds through a network error or a server error and sends them with the next heartbeat', async () => {
    const { play, progress, answerWith, log, onProgress } = setup()
    answerWith(() => Promise.reject(new TypeError('Failed to fetch')))
    play(2)
    await settle()
    answerWith(() => Response.json({ message: 'Something went wrong.' }, { status: 503 }))
    play(10)
    await settle()
    answerWith(() => Response.json({ watchedSeconds: 22, completed: false, lastPosition: 22, duration: 120 }))
    play(10)
    await settle()
    expect(progress().map((body) => body.watched)).toEqual([[[0, 2]], [[0, 12]], [[0, 22]]])
    expect(log).toHaveBeenCalledTimes(2)
    expect(onProgress).toHaveBeenCalledTimes(1)
  })

  it('drops seconds the server refuses as invalid, and stops after a 403', async () => {
    const { play, progress, answerWith, log } = setup({ embedUrl: NOCOOKIE })
    answerWith(() => Response.json({ message: 'Implausible progress.' }, { status: 400 }))
    play(2)
    await settle()
    answerWith(() => Response.json({ message: 'Not allowed.' }, { status: 403 }))
    play(10)
    await settle()
    expect(progress().map((body) => body.watched)).toEqual([[[0, 2]], [[2, 12]]])
    expect(log).toHaveBeenCalledWith('Video progress refused (400).', 'Implausible progress.')
    const sent = progress().length
    play(30)
    await settle()
    expect(progress()).toHaveLength(sent)
  })

  it('sends one heartbeat at a time, and the next one when the first is answered', async () => {
    const { play, report, progress, answerWith } = setup()
    let release: () => void = () => {}
    answerWith(
      () =>
        new Promise((resolve) => {
          release = () =>
            resolve(Response.json({ watchedSeconds: 0, completed: false, lastPosition: 0, duration: 120 }))
        }),
    )
    play(2) // first heartbeat, held by the server
    play(1.5)
    report('paused') // must wait
    await settle()
    expect(progress()).toHaveLength(1)
    release()
    await settle()
    expect(progress().map((body) => body.watched)).toEqual([[[0, 2]], [[2, 3]]])
  })
})

describe('ProgressReporter: audits', () => {
  it('audits privacy-enhanced videos on even seconds, at most once per 10 s, numbers as strings', async () => {
    const { play, audits, wait, report } = setup({ embedUrl: NOCOOKIE })
    play(25)
    await settle()
    expect(audits()).toEqual([
      { userId: 'u1', courseId: 'c1', videoId: 'v1', videoDuration: '120', videoProgress: '0' },
      { userId: 'u1', courseId: 'c1', videoId: 'v1', videoDuration: '120', videoProgress: '10' },
      { userId: 'u1', courseId: 'c1', videoId: 'v1', videoDuration: '120', videoProgress: '20' },
    ])
    // odd second: waits for the next even one
    report('paused', 31.2)
    wait(20)
    play(2, 31.2)
    await settle()
    expect(audits().at(-1)).toMatchObject({ videoProgress: '32' })
  })

  it('does not audit other hosts, or while paused', async () => {
    const other = setup({ embedUrl: STAND_IN })
    other.play(25)
    const paused = setup({ embedUrl: NOCOOKIE })
    paused.report('paused', 0)
    paused.wait(30)
    paused.report('paused', 4)
    await settle()
    expect(other.audits()).toEqual([])
    expect(paused.audits()).toEqual([])
  })

  it('only logs a failed audit', async () => {
    const { play, audits, answerWith, log } = setup({ embedUrl: NOCOOKIE })
    answerWith((call) =>
      call.url === AUDIT_URL
        ? Promise.reject(new TypeError('Failed to fetch'))
        : Response.json({ watchedSeconds: 0, completed: false, lastPosition: 0, duration: 120 }),
    )
    play(1)
    await settle()
    expect(audits()).toHaveLength(1)
    expect(log).toHaveBeenCalledWith('Video audit not sent.', expect.any(TypeError))
  })
})

describe('splitRanges', () => {
  it('keeps the first seconds for now and the rest for later, splitting a range when needed', async () => {
    const { splitRanges } = await import('./reporter.ts')
    expect(
      splitRanges(
        [
          [0, 30],
          [40, 80],
          [90, 100],
        ],
        60,
      ),
    ).toEqual([
      [
        [0, 30],
        [40, 70],
      ],
      [
        [70, 80],
        [90, 100],
      ],
    ])
    expect(splitRanges([[0, 10]], 60)).toEqual([[[0, 10]], []])
    expect(splitRanges([], 60)).toEqual([[], []])
  })
})
