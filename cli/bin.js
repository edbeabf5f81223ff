#!/usr/bin/env node
// `portal` (npx portal …): runs the TypeScript CLI through tsx's loader, no build step.
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
