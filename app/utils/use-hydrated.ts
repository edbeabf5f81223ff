import { useSyncExternalStore } from 'react'

const noSubscribe = () => () => {}

/**
 * False on the server and during hydration, true once React runs in the browser: what needs
 * JavaScript (a switch, a dialog, drag and drop) shows only then, and a plain form stands in before.
 */
export function useHydrated() {
  return useSyncExternalStore(
    noSubscribe,
    () => true,
    () => false,
  )
}
