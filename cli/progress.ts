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

/**
 * A bar for work of several kinds at once (a backup's tables, rows, bytes and files): the caller gives the
 * value, the total and the fields of `format` on each update; on stderr when it is a terminal.
 */
export function progressStatus(format: string) {
  if (!process.stderr.isTTY) return { update: (_value: number, _total: number, _fields: object) => {}, stop: () => {} }
  const bar = new cliProgress.SingleBar(
    { stream: process.stderr, format, hideCursor: true, clearOnComplete: true },
    cliProgress.Presets.shades_classic,
  )
  let started = false
  return {
    update(value: number, total: number, fields: object) {
      if (!started) bar.start(Math.max(total, 1), value, fields)
      else {
        bar.setTotal(Math.max(total, 1))
        bar.update(value, fields)
      }
      started = true
    },
    stop() {
      if (started) bar.stop()
      started = false
    },
  }
}
