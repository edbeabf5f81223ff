import { getEnv } from '#app/utils/env.server.ts'
import { labsBusy } from './sandbox.server.ts'

// The labs' share of this process: at most LABS_GRADINGS_MAX statements of learners run at once (a grading, or a
// statement of a two-session pair that is not waiting on a lock), each holder one at a time.

let running = 0
const holders = new Set<string>()

/** Takes one of this process's grading slots for `holder`, or refuses with 429 (`mine`: the holder has one). */
export function takeGradingSlot(holder: string, messages: { mine: string; full: string }) {
  if (holders.has(holder)) throw labsBusy(messages.mine)
  if (running >= getEnv().LABS_GRADINGS_MAX) throw labsBusy(messages.full)
  holders.add(holder)
  running++
}

/** Gives `holder`'s slot back (nothing when it holds none). */
export function giveGradingSlot(holder: string) {
  if (holders.delete(holder)) running--
}
