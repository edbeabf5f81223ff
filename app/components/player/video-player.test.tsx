import { describe, expect, it } from 'vitest'
import { renderComponent } from '#tests/render.tsx'
import { type PlayerVideo, VideoPlayer } from './video-player.tsx'

/** The player of a video at `embedUrl` as the server renders it, before any JavaScript runs. */
function render(embedUrl: string, title = 'Joins & keys') {
  const video: PlayerVideo = { id: 'v1', title, embedUrl, duration: 120, lastPosition: 30 }
  return renderComponent(<VideoPlayer video={video} courseId="c1" userId="u1" />)
}

describe('VideoPlayer (server render)', () => {
  it('renders a native <video> with controls for a media file', async () => {
    const page = await render('https://cdn.example.com/lesson.mp4')
    const player = page.getByLabelText('Joins & keys')
    expect(player.tagName).toBe('VIDEO')
    expect(player).toHaveAttribute('src', 'https://cdn.example.com/lesson.mp4')
    expect(player).toHaveAttribute('controls')
    expect(page.queryByText('Progress is not tracked for this video.')).toBeNull()
  })

  it('leaves a tracked iframe to the browser, which knows the page’s origin; the plain player without JavaScript', async () => {
    const page = await render('https://www.youtube-nocookie.com/embed/dQw4w9WgXcQ?start=5')
    const frame = page.getByTitle('Joins & keys')
    // only inside <noscript>: the tracked player is added once React runs
    expect(frame.tagName).toBe('IFRAME')
    expect(frame.closest('noscript')).not.toBeNull()
    expect(frame).toHaveAttribute('src', 'https://www.youtube-nocookie.com/embed/dQw4w9WgXcQ?start=5')
    expect(page.queryByText('Progress is not tracked for this video.')).toBeNull()
  })

  it('renders an untracked embed with the restrictive frame attributes and a small note', async () => {
    const page = await render('https://videos.example.com/watch/123', 'Intro <b>')
    const frame = page.getByTitle('Intro <b>')
    expect(frame.tagName).toBe('IFRAME')
    expect(frame.closest('noscript')).toBeNull()
    expect(frame).toHaveAttribute('src', 'https://videos.example.com/watch/123')
    expect(frame).toHaveAttribute('allow', 'autoplay; encrypted-media; picture-in-picture; fullscreen')
    expect(frame).toHaveAttribute('sandbox', 'allow-scripts allow-same-origin allow-presentation')
    expect(frame).toHaveAttribute('referrerPolicy', 'strict-origin-when-cross-origin')
    expect(page.getByText('Progress is not tracked for this video.')).toBeInTheDocument()
  })

  it('renders no frame at all for an address that is not a web address', async () => {
    const page = await render('javascript:alert(1)')
    expect(page.queryByTitle('Joins & keys')).toBeNull()
    expect(page.getByText('Progress is not tracked for this video.')).toBeInTheDocument()
  })
})
