import { PRIVACY_ENHANCED_HOST, VIMEO_PLAYER_HOST, YOUTUBE_HOSTS } from '#app/modules/content/video-hosts.ts'

// Which player protocol an embed address speaks: the progress logic talks to the
// player through an adapter, so a local stand-in that speaks YouTube's protocol works in tests.

export type VideoProvider = 'youtube' | 'vimeo' | 'html5' | 'none'

const EMBED_PATH = /^\/embed\/[^/]+\/?$/
const MEDIA_FILE = /\.(mp4|webm|ogg)$/i

function parse(embedUrl: string): URL | null {
  try {
    const url = new URL(embedUrl)
    return url.protocol === 'https:' || url.protocol === 'http:' ? url : null
  } catch {
    return null
  }
}

/**
 * youtube for YouTube embeds and for any host serving `/embed/{id}` (YouTube-compatible players,
 * such as the tests' stand-in); vimeo for Vimeo's player; html5 for a media file; none otherwise.
 */
export function videoProvider(embedUrl: string): VideoProvider {
  const url = parse(embedUrl)
  if (!url) return 'none'
  const host = url.hostname.toLowerCase()
  if (YOUTUBE_HOSTS.has(host)) return EMBED_PATH.test(url.pathname) ? 'youtube' : 'none'
  if (host === VIMEO_PLAYER_HOST) return /^\/video\/\d+\/?$/.test(url.pathname) ? 'vimeo' : 'none'
  if (MEDIA_FILE.test(url.pathname)) return 'html5'
  if (EMBED_PATH.test(url.pathname)) return 'youtube'
  return 'none'
}

/** The privacy-enhanced YouTube host: the only one whose views are audited (docs/product.md#progress). */
export function isPrivacyEnhanced(embedUrl: string): boolean {
  return parse(embedUrl)?.hostname.toLowerCase() === PRIVACY_ENHANCED_HOST
}

/**
 * The iframe address for an embed: what the player's message protocol needs, on top of the
 * parameters already there (such as `start=`). YouTube only posts to the page named by `origin`.
 */
export function playerSrc(embedUrl: string, origin: string): string {
  const provider = videoProvider(embedUrl)
  const url = parse(embedUrl)
  if (!url || provider === 'none' || provider === 'html5') return embedUrl
  if (provider === 'youtube') {
    url.searchParams.set('enablejsapi', '1')
    url.searchParams.set('origin', origin)
    url.searchParams.set('playsinline', '1')
    url.searchParams.set('rel', '0')
  } else {
    url.searchParams.set('api', '1')
  }
  return url.toString()
}
