import { describe, expect, it } from 'vitest'
import { renderComponent } from '#tests/render.tsx'
import { EmptyState } from './empty-state.tsx'
import { Spinner } from './spinner.tsx'

describe('Spinner', () => {
  it('is a status with a screen-reader label, or pure decoration without one', async () => {
    const labelled = await renderComponent(<Spinner label="Please wait" />)
    const status = labelled.getByRole('status')
    expect(status).toHaveTextContent(/^Please wait$/)
    expect(labelled.getByText('Please wait')).toHaveClass('sr-only')

    const decorative = await renderComponent(
      <p>
        Saving <Spinner label={null} />
      </p>,
    )
    expect(decorative.queryByRole('status')).toBeNull()
    expect(decorative.getByText('Saving')).toHaveTextContent(/^Saving$/)
  })
})

describe('EmptyState', () => {
  it('shows the title and only the parts it is given', async () => {
    const bare = await renderComponent(<EmptyState title="No Documents found" />)
    expect(bare.getByText('No Documents found').parentElement).toHaveTextContent(/^No Documents found$/)
    expect(bare.queryByRole('link')).toBeNull()

    const full = await renderComponent(
      <EmptyState title="No Data Found" text="Try another search." action={<a href="/x">Clear</a>} />,
    )
    const box = full.getByText('No Data Found').parentElement
    expect(box).toHaveTextContent(/^No Data FoundTry another search\.Clear$/)
    expect(full.getByRole('link', { name: 'Clear' })).toHaveAttribute('href', '/x')
  })
})
