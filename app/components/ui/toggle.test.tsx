import { type ReactNode } from 'react'
import { describe, expect, it } from 'vitest'
import { postedBy, renderComponent } from '#tests/render.tsx'
import { Toggle, ToggleSwitch } from './toggle.tsx'

/** `element` in a form, as the server renders it, and what that form posts. */
async function renderInForm(element: ReactNode) {
  const page = await renderComponent(<form aria-label="Settings">{element}</form>)
  return { page, posted: postedBy(page.getByRole('form', { name: 'Settings' })) }
}

describe('Toggle', () => {
  it('renders two radios on the server, so the choice works and posts true or false without JavaScript', async () => {
    const on = await renderInForm(
      <Toggle name="visibility" label="Visibility" defaultChecked onLabel="Unhide" offLabel="Hide" />,
    )
    const group = on.page.getByRole('group', { name: 'Visibility' })
    expect(group).toContainElement(on.page.getByRole('radio', { name: 'Unhide' }))
    expect(on.page.getByRole('radio', { name: 'Unhide' })).toBeChecked()
    expect(on.page.getByRole('radio', { name: 'Unhide' })).toHaveAttribute('value', 'true')
    expect(on.page.getByRole('radio', { name: 'Hide' })).not.toBeChecked()
    expect(on.page.getByRole('radio', { name: 'Hide' })).toHaveAttribute('value', 'false')
    expect(on.posted).toEqual([['visibility', 'true']])

    const off = await renderInForm(
      <Toggle name="preview" label="Preview" checked={false} onLabel="Yes" offLabel="No" />,
    )
    expect(off.page.getByRole('radio', { name: 'No' })).toBeChecked()
    expect(off.posted).toEqual([['preview', 'false']])
  })
})

describe('ToggleSwitch (after hydration)', () => {
  it('is a labelled switch that posts exactly one true or false and shows the current word', async () => {
    const on = await renderInForm(
      <ToggleSwitch name="visibility" label="Visibility" defaultChecked onLabel="Unhide" offLabel="Hide" />,
    )
    const visibility = on.page.getByRole('switch', { name: 'Visibility' })
    expect(visibility).toBeChecked()
    expect(on.page.getByText('Unhide')).toBeInTheDocument()
    expect(on.page.queryByText('Hide')).toBeNull()
    // Headless UI's own named checkbox would post "on" or nothing: the switch must carry no name
    expect(on.posted).toEqual([['visibility', 'true']])

    const off = await renderInForm(<ToggleSwitch name="preview" label="Preview" checked={false} />)
    expect(off.page.getByRole('switch', { name: 'Preview' })).not.toBeChecked()
    expect(off.page.getByText('No')).toBeInTheDocument()
    expect(off.posted).toEqual([['preview', 'false']])
  })
})
