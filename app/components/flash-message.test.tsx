import { describe, expect, it } from 'vitest'
import { renderComponent } from '#tests/render.tsx'
import { FlashMessage, type Flash } from './flash-message.tsx'

/** The flash message as the server's HTML shows it, before any JavaScript runs. */
const renderFlash = (flash: Flash | null) => renderComponent(<FlashMessage flash={flash} />)

describe('FlashMessage', () => {
  it('is in the server’s HTML: an alert for an error or a warning, a status otherwise', async () => {
    const error = await renderFlash({ type: 'error', message: 'Token Expired.' })
    expect(error.getByRole('alert')).toHaveTextContent(/^Token Expired\.$/)
    expect(error.queryByRole('status')).toBeNull()

    const warning = await renderFlash({ type: 'warning', message: 'Careful.' })
    expect(warning.getByRole('alert')).toHaveTextContent(/^Careful\.$/)

    const success = await renderFlash({
      type: 'success',
      message: 'Course created.',
      description: 'Add its videos next.',
    })
    expect(success.getByRole('status')).toHaveTextContent(/^Course created\.Add its videos next\.$/)
    expect(success.getByText('Add its videos next.')).toBeInTheDocument()
    expect(success.queryByRole('alert')).toBeNull()

    const info = await renderFlash({ type: 'info', message: 'Saved.' })
    expect(info.getByRole('status')).toHaveTextContent(/^Saved\.$/)
    expect(info.queryByRole('alert')).toBeNull()
  })

  it('renders nothing without a message', async () => {
    const none = await renderFlash(null)
    expect(none.queryByRole('alert')).toBeNull()
    expect(none.queryByRole('status')).toBeNull()
  })
})
