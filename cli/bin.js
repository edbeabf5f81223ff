#!/usr/bin/env -S node --max-semi-space-size=2
// `portal` (npx portal …): runs the TypeScript CLI through tsx's loader, no build step.
// The small young generation keeps a streaming command (an export or import of millions of rows) at a flat
// memory use: V8's default lets short-lived row objects pile up to well over a hundred megabytes before
// collecting them, with no gain in speed for this kind of work.
import { readFileSync } from 'node:fs'

// Refuse an unsupported Node.js in one line, before any dependency can fail on it with a stack trace.
const { engines } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'))
const wanted = Number(/>=\s*(\d+)/.exec(engines.node)?.[1] ?? 0)
const major = Number(process.versions.node.split('.')[0])
if (major < wanted) {
  process.stderr.write(
    `portal: Node.js ${engines.node} is required; this is ${process.version}. Install Node.js ${wanted} (see .nvmrc) or run \`source .ci/use-node.sh\`.\n`,
  )
  process.exit(1)
}

const { register } = await import('tsx/esm/api')
register()
await import('./index.ts')
