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
