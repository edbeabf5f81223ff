import cliProgress from 'cli-progress'

/**
 * A progress line on stderr for long work, shown only when stderr is a terminal: scripts and pipes get
 * nothing but the command's data on stdout and its messages on stderr.
 */
export function progressLine(label: string, unit: string) {
  if (!process.stderr.isTTY) return { update: (_count: number) => {}, stop: () => {} }
  const bar = new cliProgress.SingleBar(
    {
      stream: process.stderr,
      format: `${label} {value} ${unit} ({speed} ${unit}/s)`,
      hideCursor: true,
      clearOnComplete: true,
    },
    cliProgress.Presets.shades_classic,
  )
  const started = performance.now()
  bar.start(0, 0, { speed: 0 })
  return {
    update(count: number) {
      const seconds = (performance.now() - started) / 1000
      bar.update(count, { speed: seconds > 0 ? Math.round(count / seconds) : 0 })
    },
    stop: () => bar.stop(),
  }
}

/**
 * A bar for work whose size is known in one unit (bytes of a file) while it is counted in another
 * (rows): percentage, the count, its rate and the time left, on stderr when it is a terminal.
 */
export function progressBar(label: string, unit: string, total: number) {
  if (!process.stderr.isTTY) return { update: (_done: number, _count: number) => {}, stop: () => {} }
  const bar = new cliProgress.SingleBar(
    {
      stream: process.stderr,
      format: `${label} {bar} {percentage}% | {count} ${unit} | {speed} ${unit}/s | ETA {eta_formatted}`,
      hideCursor: true,
      clearOnComplete: true,
      etaBuffer: 20,
    },
    cliProgress.Presets.shades_classic,
  )
  const started = performance.now()
  bar.start(Math.max(total, 1), 0, { count: 0, speed: 0 })
  return {
    update(done: number, count: number) {
      const seconds = (performance.now() - started) / 1000
      bar.update(Math.min(done, Math.max(total, 1)), { count, speed: seconds > 0 ? Math.round(count / seconds) : 0 })
    },
    stop: () => bar.stop(),
  }
}
