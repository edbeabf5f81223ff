// The web server process that `portal serve` starts: remix-serve on the build, tied to its parent.
// If the parent dies without stopping us (kill -9, a crash), the IPC channel closes and we exit,
// so no server is left holding the port.
process.on('disconnect', () => process.exit(0))
await import('@remix-run/serve/dist/cli.js')
