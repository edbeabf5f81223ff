import { describe, expect, it } from 'vitest'
import { isPrivacyEnhanced, playerSrc, videoProvider } from './provider.ts'

describe('videoProvider', () => {
  it('recognises YouTube embeds on both hosts', () => {
    expect(videoProvider('https://www.youtube-nocookie.com/embed/dQw4w9WgXcQ')).toBe('youtube')
    expect(videoProvider('https://www.youtube-nocookie.com/embed/dQw4w9WgXcQ?start=90')).toBe('youtube')
    expect(videoProvider('https://www.youtube.com/embed/dQw4w9WgXcQ')).toBe('youtube')
    expect(videoProvider('https://youtube.com/embed/dQw4w9WgXcQ/')).toBe('youtube')
  })

  it('treats any other host serving /embed/{id} as a YouTube-compatible player (the tests’ stand-in)', () => {
    expect(videoProvider('http://127.0.0.1:3211/embed/intro?d=30')).toBe('youtube')
    expect(videoProvider('https://videos.example.com/embed/abc')).toBe('youtube')
  })

  it('recognises Vimeo’s player, with or without an unlisted hash', () => {
    expect(videoProvider('https://player.vimeo.com/video/76979871')).toBe('vimeo')
    expect(videoProvider('https://player.vimeo.com/video/76979871?h=8272103f6e')).toBe('vimeo')
  })

  it('recognises media files, whatever the case of the extension', () => {
    expect(videoProvider('https://cdn.example.com/videos/lesson-1.mp4')).toBe('html5')
    expect(videoProvider('https://cdn.example.com/lesson.WEBM?token=x')).toBe('html5')
    expect(videoProvider('http://localhost:3211/media/clip.ogg')).toBe('html5')
  })

  it('answers none for anything it cannot track', () => {
    expect(videoProvider('https://www.youtube.com/watch?v=dQw4w9WgXcQ')).toBe('none')
    expect(videoProvider('https://vimeo.com/76979871')).toBe('none')
    expect(videoProvider('https://player.vimeo.com/showcase/1')).toBe('none')
    expect(videoProvider('https://example.com/video/1')).toBe('none')
    expect(videoProvider('https://example.com/embed/a/b')).toBe('none')
    expect(videoProvider('javascript:alert(1)//embed/x')).toBe('none')
    expect(videoProvider('not a url')).toBe('none')
    expect(videoProvider('')).toBe('none')
  })
})

describe('isPrivacyEnhanced', () => {
  it('is true only for www.youtube-nocookie.com', () => {
    expect(isPrivacyEnhanced('https://www.youtube-nocookie.com/embed/dQw4w9WgXcQ')).toBe(true)
    expect(isPrivacyEnhanced('https://WWW.YOUTUBE-NOCOOKIE.COM/embed/dQw4w9WgXcQ')).toBe(true)
    expect(isPrivacyEnhanced('https://www.youtube.com/embed/dQw4w9WgXcQ')).toBe(false)
    expect(isPrivacyEnhanced('https://player.vimeo.com/video/1')).toBe(false)
    expect(isPrivacyEnhanced('https://evil.example/www.youtube-nocookie.com/embed/x')).toBe(false)
    expect(isPrivacyEnhanced('garbage')).toBe(false)
  })
})

describe('playerSrc', () => {
  const origin = 'https://portal.example.com'

  it('adds what the YouTube protocol needs and keeps the existing start time', () => {
    const src = new URL(playerSrc('https://www.youtube-nocookie.com/embed/dQw4w9WgXcQ?start=90', origin))
    expect(src.origin + src.pathname).toBe('https://www.youtube-nocookie.com/embed/dQw4w9WgXcQ')
    expect(Object.fromEntries(src.searchParams)).toEqual({
      start: '90',
      enablejsapi: '1',
      origin,
      playsinline: '1',
      rel: '0',
    })
  })

  it('overrides a wrong origin rather than repeating the parameter', () => {
    const src = new URL(playerSrc('http://127.0.0.1:3211/embed/x?origin=https://elsewhere&enablejsapi=0', origin))
    expect(src.searchParams.getAll('origin')).toEqual([origin])
    expect(src.searchParams.getAll('enablejsapi')).toEqual(['1'])
  })

  it('adds api=1 for Vimeo and keeps the unlisted hash', () => {
    const src = new URL(playerSrc('https://player.vimeo.com/video/76979871?h=8272103f6e', origin))
    expect(Object.fromEntries(src.searchParams)).toEqual({ h: '8272103f6e', api: '1' })
  })

  it('leaves media files and untracked embeds untouched', () => {
    expect(playerSrc('https://cdn.example.com/a.mp4?x=1', origin)).toBe('https://cdn.example.com/a.mp4?x=1')
    expect(playerSrc('https://example.com/video/1', origin)).toBe('https://example.com/video/1')
  })
})
