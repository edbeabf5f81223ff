import { parseFragment } from 'parse5'
import { LOOPBACK_HOSTS, PRIVACY_ENHANCED_HOST, VIMEO_HOSTS, VIMEO_PLAYER_HOST, YOUTUBE_HOSTS } from './video-hosts.ts'

// Video embeds: an admin pastes a video address or an <iframe> embed code; we keep
// only a normalised, allow-listed address and never render what was typed as HTML.

export const EMBED_INVALID = 'Embeded code must be a YouTube or Vimeo video address, or its <iframe> embed code.'

type EmbedResult = { ok: true; embedUrl: string } | { ok: false; message: string }

const YOUTUBE_ID = /^[A-Za-z0-9_-]{11}$/

/**
 * The embed address to store for what an admin pasted, or why it is refused. YouTube becomes its
 * privacy-enhanced host (youtube-nocookie.com), Vimeo its player; `extraHosts` (VIDEO_HOSTS, as
 * host[:port]) are kept as given, over https, or http on loopback only.
 */
export function normalizeEmbed(input: string, extraHosts: readonly string[] = []): EmbedResult {
  const text = input.trim()
  if (!text) return { ok: false, message: 'Embeded code is required.' }
  if (text.length > 2000) return { ok: false, message: 'Embeded code is too long.' }
  const src = text.startsWith('<') ? iframeSource(text) : text
  if (src === undefined) return { ok: false, message: 'Paste one <iframe> embed code, or the video address itself.' }

  let url: URL
  try {
    url = new URL(src.startsWith('//') ? `https:${src}` : src)
  } catch {
    return { ok: false, message: EMBED_INVALID }
  }
  if (url.username || url.password) return { ok: false, message: EMBED_INVALID }
  const host = url.hostname.toLowerCase()

  if (YOUTUBE_HOSTS.has(host)) return youtube(url)
  if (VIMEO_HOSTS.has(host)) return vimeo(url)
  if (extraHosts.includes(url.host.toLowerCase())) {
    const secure = url.protocol === 'https:' || (url.protocol === 'http:' && LOOPBACK_HOSTS.has(host))
    if (!secure) return { ok: false, message: 'Video addresses must use https.' }
    return { ok: true, embedUrl: `${url.origin}${url.pathname}${url.search}` }
  }
  return { ok: false, message: EMBED_INVALID }
}

/** The src of the only element of an embed code, which must be an iframe. */
function iframeSource(html: string): string | undefined {
  const elements = parseFragment(html).childNodes.filter(
    (node) => node.nodeName !== '#text' || ('value' in node && node.value.trim() !== ''),
  )
  const [frame] = elements
  if (elements.length !== 1 || frame.nodeName !== 'iframe' || !('attrs' in frame)) return undefined
  return frame.attrs.find((a) => a.name === 'src')?.value.trim() || undefined
}

function youtube(url: URL): EmbedResult {
  const host = url.hostname.toLowerCase()
  const parts = url.pathname.split('/').filter(Boolean)
  let id: string | undefined
  if (host === 'youtu.be') id = parts[0]
  else if (parts[0] === 'watch') id = url.searchParams.get('v') ?? undefined
  else if (['embed', 'shorts', 'live', 'v'].includes(parts[0] ?? '')) id = parts[1]
  if (!id || !YOUTUBE_ID.test(id)) return { ok: false, message: 'That YouTube address does not name a video.' }
  const start = startSeconds(url.searchParams.get('start') ?? url.searchParams.get('t'))
  return { ok: true, embedUrl: `https://${PRIVACY_ENHANCED_HOST}/embed/${id}${start ? `?start=${start}` : ''}` }
}

function vimeo(url: URL): EmbedResult {
  const parts = url.pathname.split('/').filter(Boolean)
  const [id, hash] = url.hostname.toLowerCase() === VIMEO_PLAYER_HOST && parts[0] === 'video' ? parts.slice(1) : parts
  if (!id || !/^\d{1,12}$/.test(id)) return { ok: false, message: 'That Vimeo address does not name a video.' }
  // unlisted videos carry a hash, in the path (vimeo.com/ID/HASH) or as ?h= on the player
  const h = url.searchParams.get('h') ?? hash
  const query = h && /^[0-9a-f]{6,20}$/i.test(h) ? `?h=${h}` : ''
  return { ok: true, embedUrl: `https://${VIMEO_PLAYER_HOST}/video/${id}${query}` }
}

/** YouTube start times: 90, 90s, 1m30s, 1h2m3s. */
function startSeconds(value: string | null): number {
  if (!value) return 0
  if (/^\d+$/.test(value)) return Number(value)
  const match = /^(?:(\d+)h)?(?:(\d+)m)?(?:(\d+)s)?$/.exec(value)
  if (!match || !value) return 0
  return Number(match[1] ?? 0) * 3600 + Number(match[2] ?? 0) * 60 + Number(match[3] ?? 0)
}
