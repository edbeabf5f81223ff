/** Every stored file is reached through the app, which checks permission first. */
export const fileLink = (key: string) => `/files/${encodeURIComponent(key)}`

const INLINE_TYPES = new Set(['image/png', 'image/jpeg', 'image/gif', 'application/pdf'])

/**
 * Whether a browser can show a stored file of this content type by itself: /files serves these
 * inline, and the document and assessment viewers embed them; anything else is a download.
 */
export const isInlineType = (contentType: string) => INLINE_TYPES.has(contentType)
