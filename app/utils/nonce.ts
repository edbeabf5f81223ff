import { createContext, useContext } from 'react'

// The nonce of the page's Content-Security-Policy (app/utils/security-headers.server.ts), made per
// request by the server entry and put on every script Remix writes into the page. In the browser
// it is '': browsers hide a nonce from the DOM, and scripts added after hydration come from files.
const NonceContext = createContext('')

export const NonceProvider = NonceContext.Provider

export const useNonce = () => useContext(NonceContext)
