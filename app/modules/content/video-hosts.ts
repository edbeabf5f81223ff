// The video hosts the portal knows (YouTube, Vimeo and VIDEO_HOSTS), for the server that normalises embeds and for the
// player that picks a protocol for them.

export const YOUTUBE_HOSTS: ReadonlySet<string> = new Set([
  'youtube.com',
  'www.youtube.com',
  'm.youtube.com',
  'youtube-nocookie.com',
  'www.youtube-nocookie.com',
  'youtu.be',
])

export const VIMEO_HOSTS: ReadonlySet<string> = new Set(['vimeo.com', 'www.vimeo.com', 'player.vimeo.com'])

/** Where YouTube embeds are stored (privacy-enhanced), and the only host whose views are audited. */
export const PRIVACY_ENHANCED_HOST = 'www.youtube-nocookie.com'

/** Where Vimeo embeds are stored and played. */
export const VIMEO_PLAYER_HOST = 'player.vimeo.com'

/** Hosts that may serve a VIDEO_HOSTS embed over plain http: this machine only. */
export const LOOPBACK_HOSTS: ReadonlySet<string> = new Set(['localhost', '127.0.0.1', '[::1]'])
