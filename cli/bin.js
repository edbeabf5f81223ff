#!/usr/bin/env node
// `portal` (npx portal …): runs the TypeScript CLI through tsx's loader, no build step.
import { register } from 'tsx/esm/api'

register()
await import('./index.ts')
