import { execFileSync, spawn } from 'node:child_process'
import { readFileSync } from 'node:fs'
import path from 'node:path'
import { setTimeout as pause } from 'node:timers/promises'
import { isServiceError } from '#app/modules/errors.ts'
import { root } from '#tests/bench/serve.ts'

// What the benches on the big database share (tests/bench/scale.ts, tests/bench/backup.ts): calls to the
// app's services timed one by one, and a `portal` command run in a child process with its peak memory; and
// CPU time from /proc (tests/bench/run.ts too).

export const CLOCK_TICKS = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100

export type CallFigures = {
  p50: number
  p95: number
  p99: number
  max: number
  runs: number
  perSecond: number
  /** calls the service refused, by status */
  failed: Map<number, number>
}

/**
 * Run the calls `inFlight` at a time, each timed from its start to its answer. With `perSecond`, the k-th
 * call starts no sooner than k / perSecond seconds after the first: a fixed rate while the calls keep up,
 * fewer when they do not (a call is timed from its own start, not from when it was due). The calls may be a
 * generator that ends when the caller says so. A call the service refuses (a ServiceError) is counted by
 * status; anything else ends the bench.
 */
export async function timeCalls(
  calls: Iterable<() => Promise<unknown>>,
  inFlight: number,
  options: { perSecond?: number } = {},
): Promise<CallFigures> {
  const times: number[] = []
  const failed = new Map<number, number>()
  const next = calls[Symbol.iterator]()
  let started = 0
  const start = performance.now()
  const worker = async () => {
    for (;;) {
      if (options.perSecond) {
        const due = start + (started * 1000) / options.perSecond
        const wait = due - performance.now()
        if (wait > 0) await pause(wait)
      }
      const step = next.next()
      if (step.done) return
      started++
      const callStarted = performance.now()
      try {
        await step.value()
      } catch (error) {
        if (!isServiceError(error)) throw error
        failed.set(error.status, (failed.get(error.status) ?? 0) + 1)
      }
      times.push(performance.now() - callStarted)
    }
  }
  await Promise.all(Array.from({ length: inFlight }, worker))
  const seconds = (performance.now() - start) / 1000
  times.sort((a, b) => a - b)
  const at = (share: number) => times[Math.min(times.length - 1, Math.ceil(share * times.length) - 1)] ?? NaN
  return {
    p50: at(0.5),
    p95: at(0.95),
    p99: at(0.99),
    max: times[times.length - 1] ?? NaN,
    runs: times.length,
    perSecond: times.length / seconds,
    failed,
  }
}

/**
 * A `portal` command in a child process, as an operator runs it: the bin itself, as `npx portal` runs it
 * (its first line sets the V8 flags the command runs with). Its peak RSS is the kernel's high-water mark
 * (VmHWM) and its CPU time (user + system, its threads included), both read every 50 ms until the process
 * ends; its standard output comes back, its standard error goes to ours.
 */
export function runPortal(args: string[], env: NodeJS.ProcessEnv = process.env) {
  return new Promise<{ stdout: string; seconds: number; peakKb: number; cpuMs: number }>((resolve, reject) => {
    const started = performance.now()
    const child = spawn(path.join(root, 'cli', 'bin.js'), args, { env, stdio: ['ignore', 'pipe', 'inherit'] })
    let peakKb = 0
    let cpuMs = 0
    const watch = setInterval(() => {
      try {
        const line = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'))
        if (line) peakKb = Math.max(peakKb, Number(line[1]))
        const fields = readFileSync(`/proc/${child.pid}/stat`, 'utf8').split(') ')[1].split(' ')
        cpuMs = ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS
      } catch {
        // the process has just ended
      }
    }, 50)
    let stdout = ''
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()))
    child.once('error', (error) => {
      clearInterval(watch)
      reject(error)
    })
    child.once('exit', (code) => {
      clearInterval(watch)
      if (code !== 0) return reject(new Error(`portal ${args.join(' ')} exited with ${code}`))
      resolve({ stdout, seconds: (performance.now() - started) / 1000, peakKb, cpuMs })
    })
  })
}

// ——— CPU time from /proc ———

/**
 * A process's CPU in ms with its children's: the process, its live children and, through its cutime/cstime,
 * the children that have already ended (PostgreSQL's postmaster with its backends and writers, a web server
 * with its workers).
 */
export function treeCpuMs(pid: number) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ')
  let ticks = Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14])
  for (const child of children(pid)) {
    try {
      const own = readFileSync(`/proc/${child}/stat`, 'utf8').split(') ')[1].split(' ')
      ticks += Number(own[11]) + Number(own[12])
    } catch {
      // ended between the listing and the read: its time is in the parent's cutime now
    }
  }
  return (ticks * 1000) / CLOCK_TICKS
}

export const children = (pid: number) =>
  readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number)

/** The postmaster of the embedded PostgreSQL whose data folder is `dataDir` (db/embedded.ts). */
export function postmasterPid(dataDir: string) {
  return Number(readFileSync(path.join(dataDir, 'postgres', 'postmaster.pid'), 'utf8').split('\n')[0])
}
