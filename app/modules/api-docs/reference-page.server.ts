import { createReadStream } from 'node:fs'
import { stat } from 'node:fs/promises'
import { createRequire } from 'node:module'
import path from 'node:path'
import { Readable } from 'node:stream'
import { PRODUCT_NAME } from '#app/utils/brand.ts'

// The reference page at /api/docs: Swagger UI (swagger-ui-dist) reading /api/openapi.json. Its files
// come from node_modules through /api/docs/{file}, never from a CDN, and only this page loads them:
// the page is a plain document of its own, outside the app's layout and bundles.

const BASE = '/api/docs'

/** What reference.js sets up: the document from this server, and no call to the public validator. */
const SETUP = `window.ui = SwaggerUIBundle({
  url: '/api/openapi.json',
  dom_id: '#reference',
  deepLinking: true,
  validatorUrl: null,
})
`

/** The page's own policy: everything from this site (Swagger UI's icons are data: images). */
export const REFERENCE_PAGE_POLICY = [
  "default-src 'self'",
  "img-src 'self' data:",
  "style-src 'self' 'unsafe-inline'",
  "object-src 'none'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
].join('; ')

export function referencePage(): string {
  return `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>${PRODUCT_NAME} API reference</title>
    <link rel="icon" href="/favicon.svg" type="image/svg+xml" />
    <link rel="stylesheet" href="${BASE}/swagger-ui.css" />
  </head>
  <body>
    <noscript>
      <p>This reference needs JavaScript. The document itself is at <a href="/api/openapi.json">/api/openapi.json</a>.</p>
    </noscript>
    <div id="reference"></div>
    <script src="${BASE}/swagger-ui-bundle.js"></script>
    <script src="${BASE}/reference.js"></script>
  </body>
</html>
`
}

type Asset = { contentType: string } & ({ file: string } | { text: string })

const ASSETS: Record<string, Asset> = {
  'swagger-ui.css': { contentType: 'text/css; charset=utf-8', file: 'swagger-ui.css' },
  'swagger-ui-bundle.js': { contentType: 'text/javascript; charset=utf-8', file: 'swagger-ui-bundle.js' },
  'reference.js': { contentType: 'text/javascript; charset=utf-8', text: SETUP },
}

/** Found when asked, not at import: a missing package then fails this page only. */
const swaggerUiFolder = () => path.dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'))

/** One of the page's files as a response body, or undefined for any other name. */
export async function referenceAsset(
  name: string,
): Promise<{ body: ReadableStream | string; contentType: string; size: number } | undefined> {
  if (!Object.hasOwn(ASSETS, name)) return undefined
  const asset = ASSETS[name]
  if ('text' in asset) return { body: asset.text, contentType: asset.contentType, size: Buffer.byteLength(asset.text) }
  const file = path.join(swaggerUiFolder(), asset.file)
  const { size } = await stat(file)
  return { body: Readable.toWeb(createReadStream(file)) as ReadableStream, contentType: asset.contentType, size }
}
