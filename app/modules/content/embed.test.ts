import { describe, expect, it } from 'vitest'
import { EMBED_INVALID, normalizeEmbed } from './embed.ts'

const ok = (input: string, hosts: string[] = []) => {
  const result = normalizeEmbed(input, hosts)
  if (!result.ok) throw new Error(`refused ${input}: ${result.message}`)
  return result.embedUrl
}
const refused = (input: string, hosts: string[] = []) => {
  const result = normalizeEmbed(input, hosts)
  if (result.ok) throw new Error(`accepted ${input} as ${result.embedUrl}`)
  return result.message
}

const NOCOOKIE = 'https://www.youtube-nocookie.com/embed/dQw4w9WgXcQ'

describe('normalizeEmbed', () => {
  it.each([
    'https://www.youtube.com/watch?v=dQw4w9WgXcQ',
    'https://youtube.com/watch?feature=share&v=dQw4w9WgXcQ',
    'https://m.youtube.com/watch?v=dQw4w9WgXcQ',
    'https://youtu.be/dQw4w9WgXcQ',
    'https://www.youtube.com/embed/dQw4w9WgXcQ',
    'https://www.youtube.com/shorts/dQw4w9WgXcQ',
    'http://www.youtube-nocookie.com/embed/dQw4w9WgXcQ?rel=0&autoplay=1',
    '//www.youtube.com/embed/dQw4w9WgXcQ',
    '  https://www.youtube.com/watch?v=dQw4w9WgXcQ  ',
  ])('turns the YouTube address %s into the privacy-enhanced embed', (input) => {
    expect(ok(input)).toBe(NOCOOKIE)
  })

  it('keeps a start time', () => {
    expect(ok('https://youtu.be/dQw4w9WgXcQ?t=90')).toBe(`${NOCOOKIE}?start=90`)
    expect(ok('https://www.youtube.com/watch?v=dQw4w9WgXcQ&t=1m30s')).toBe(`${NOCOOKIE}?start=90`)
    expect(ok('https://www.youtube.com/embed/dQw4w9WgXcQ?start=42')).toBe(`${NOCOOKIE}?start=42`)
  })

  it('takes the src of an iframe embed code and nothing else from it', () => {
    const code =
      '<iframe width="560" height="315" src="https://www.youtube.com/embed/dQw4w9WgXcQ?si=abc" title="YouTube video player" frameborder="0" allow="autoplay" onload="alert(1)" allowfullscreen></iframe>'
    expect(ok(code)).toBe(NOCOOKIE)
    expect(ok('<iframe src="https://player.vimeo.com/video/76979871?h=8272103f6e&badge=0"></iframe>')).toBe(
      'https://player.vimeo.com/video/76979871?h=8272103f6e',
    )
  })

  it('normalises Vimeo pages and players, with the hash of unlisted videos', () => {
    expect(ok('https://vimeo.com/76979871')).toBe('https://player.vimeo.com/video/76979871')
    expect(ok('https://vimeo.com/76979871/8272103f6e')).toBe('https://player.vimeo.com/video/76979871?h=8272103f6e')
    expect(ok('https://player.vimeo.com/video/76979871?autoplay=1')).toBe('https://player.vimeo.com/video/76979871')
  })

  it('accepts configured extra hosts over https, and http only on loopback', () => {
    expect(ok('https://videos.example.com/play/7?x=1#t', ['videos.example.com'])).toBe(
      'https://videos.example.com/play/7?x=1',
    )
    expect(ok('http://127.0.0.1:4010/embed/abc', ['127.0.0.1:4010'])).toBe('http://127.0.0.1:4010/embed/abc')
    expect(refused('http://videos.example.com/play/7', ['videos.example.com'])).toBe('Video addresses must use https.')
    expect(refused('https://videos.example.com:8443/play/7', ['videos.example.com'])).toBe(EMBED_INVALID)
  })

  it.each([
    ['https://evil.example/embed/dQw4w9WgXcQ'],
    ['https://www.youtube.com.evil.example/embed/dQw4w9WgXcQ'],
    ['javascript:alert(1)'],
    ['data:text/html,<script>alert(1)</script>'],
    ['https://user:pass@www.youtube.com/embed/dQw4w9WgXcQ'],
    ['not a url at all'],
  ])('refuses %s', (input) => {
    expect(refused(input)).toBe(EMBED_INVALID)
  })

  it('refuses YouTube and Vimeo addresses that name no video', () => {
    expect(refused('https://www.youtube.com/watch?v=short')).toBe('That YouTube address does not name a video.')
    expect(refused('https://www.youtube.com/channel/UC123')).toBe('That YouTube address does not name a video.')
    expect(refused('https://vimeo.com/channels/staffpicks')).toBe('That Vimeo address does not name a video.')
  })

  it('refuses embed codes that are not exactly one iframe with a src', () => {
    const message = 'Paste one <iframe> embed code, or the video address itself.'
    expect(refused('<script src="https://www.youtube.com/embed/dQw4w9WgXcQ"></script>')).toBe(message)
    expect(refused('<iframe></iframe>')).toBe(message)
    expect(
      refused(
        '<iframe src="https://youtu.be/dQw4w9WgXcQ"></iframe><iframe src="https://youtu.be/dQw4w9WgXcQ"></iframe>',
      ),
    ).toBe(message)
    expect(refused('<iframe src="https://evil.example/x"></iframe>')).toBe(EMBED_INVALID)
  })

  it('asks for a value when there is none', () => {
    expect(refused('   ')).toBe('Embeded code is required.')
  })
})
