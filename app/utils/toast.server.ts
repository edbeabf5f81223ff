import * as toast from 'remix-toast'
import { getEnv, getSecrets } from './env.server.ts'

// remix-toast keeps its own flash cookie; it is signed with the session secret, set up on first use.
let configured = false
function configure() {
  if (configured) return
  toast.setToastCookieOptions({
    secrets: [getSecrets().sessionSecret],
    secure: getEnv().NODE_ENV === 'production' && getEnv().PUBLIC_URL.startsWith('https:'),
  })
  configured = true
}

type Message = Parameters<typeof toast.redirectWithSuccess>[1]

export function redirectWithSuccess(to: string, message: Message, init?: ResponseInit) {
  configure()
  return toast.redirectWithSuccess(to, message, init)
}
export function redirectWithError(to: string, message: Message, init?: ResponseInit) {
  configure()
  return toast.redirectWithError(to, message, init)
}
export function jsonWithError<T>(data: T, message: Message, init?: ResponseInit) {
  configure()
  return toast.jsonWithError(data, message, init)
}
export function getToast(request: Request) {
  configure()
  return toast.getToast(request)
}
