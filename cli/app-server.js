// The web server process that `portal serve` starts: remix-serve on the build, tied to its parent.
// If the parent dies without stopping us (kill -9, a crash), the IPC channel closes and we exit,
// so no server is left holding the port.
import http from 'node:http'

process.on('disconnect', () => process.exit(0))

// remix-serve gives the app no way to know the client's address, which sign-in throttling needs.
// Every request gets it in a header of our own, overwriting whatever a client sent in its place.
export const CLIENT_ADDRESS_HEADER = 'x-portal-client-address'
const emit = http.Server.prototype.emit
http.Server.prototype.emit = function (event, ...args) {
  if (event === 'request') {
    const [request] = args
    request.headers[CLIENT_ADDRESS_HEADER] = request.socket?.remoteAddress ?? ''
  }
  return emit.call(this, event, ...args)
}

await import('@remix-run/serve/dist/cli.js')
