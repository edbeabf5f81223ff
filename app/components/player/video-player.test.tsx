import { renderToString } from 'react-dom/server'
import { describe, expect, it } from 'vitest'
import { type PlayerVideo, VideoPlayer } from './video-player.tsx'

function render(embedUrl: string, title = 'Joins & keys') {
  const video: PlayerVideo = { id: 'v1', title, embedUrl, duration: 120, lastPosition: 30 }
  return renderToString(<VideoPlayer video={video} courseId="c1" userId="u1" />)
}

describe('VideoPlayer (server render)', () => {
  it('renders a native <video> with controls for a media file', () => {
    const html = render('https://cdn.example.com/lesson.mp4')
    expect(html).toMatch(/<video [^>]*src="https:\/\/cdn.example.com\/lesson.mp4"/)
    expect(html).toMatch(/<video [^>]*controls=""/)
    expect(html).toContain('aria-label="Joins &amp; keys"')
    expect(html).not.toContain('Progress is not tracked')
  })

  it('leaves a tracked iframe to the browser, which knows the page’s origin; the plain player without JavaScript', () => {
    const html = render('https://www.youtube-nocookie.com/embed/dQw4w9WgXcQ?start=5')
    // only inside <noscript>: the tracked player is added once React runs
    expect(html).toMatch(/^<div[^>]*aspect-video[^>]*><noscript><iframe /)
    expect(html).toContain('src="https://www.youtube-nocookie.com/embed/dQw4w9WgXcQ?start=5"')
    expect(html).not.toContain('enablejsapi')
    expect(html).not.toContain('Progress is not tracked')
  })

  it('renders an untracked embed with the restrictive frame attributes and a small note', () => {
    const html = render('https://videos.example.com/watch/123', 'Intro <b>')
    expect(html).toContain('src="https://videos.example.com/watch/123"')
    expect(html).toContain('title="Intro &lt;b&gt;"')
    expect(html).toContain('allow="autoplay; encrypted-media; picture-in-picture; fullscreen"')
    expect(html).toContain('sandbox="allow-scripts allow-same-origin allow-presentation"')
    expect(html).toContain('referrerPolicy="strict-origin-when-cross-origin"')
    expect(html).toContain('Progress is not tracked for this video.')
  })

  it('renders no frame at all for an address that is not a web address', () => {
    const html = render('javascript:alert(1)')
    expect(html).not.toContain('<iframe')
    expect(html).toContain('Progress is not tracked for this video.')
  })
})
