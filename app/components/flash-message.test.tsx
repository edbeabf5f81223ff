import { renderToString } from 'react-dom/server'
import { describe, expect, it } from 'vitest'
import { FlashMessage } from './flash-message.tsx'

describe('FlashMessage', () => {
  it('is in the server’s HTML: an alert for an error or a warning, a status otherwise', () => {
    expect(renderToString(<FlashMessage flash={{ type: 'error', message: 'Token Expired.' }} />)).toMatch(
      /^<div role="alert" data-flash="error"[^>]*>.*Token Expired\.<\/p><\/div><\/div>$/,
    )
    expect(renderToString(<FlashMessage flash={{ type: 'warning', message: 'Careful.' }} />)).toMatch(
      /^<div role="alert" data-flash="warning"/,
    )
    const success = renderToString(
      <FlashMessage flash={{ type: 'success', message: 'Course created.', description: 'Add its videos next.' }} />,
    )
    expect(success).toMatch(/^<div role="status" data-flash="success"/)
    expect(success).toContain('Add its videos next.')
    expect(renderToString(<FlashMessage flash={{ type: 'info', message: 'Saved.' }} />)).toMatch(/^<div role="status"/)
  })

  it('renders nothing without a message', () => {
    expect(renderToString(<FlashMessage flash={null} />)).toBe('')
  })
})
