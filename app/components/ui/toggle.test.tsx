import { renderToString } from 'react-dom/server'
import { describe, expect, it } from 'vitest'
import { Toggle, ToggleSwitch } from './toggle.tsx'

/** The values a browser would post for `name` from this markup (hidden inputs and checked radios or boxes). */
function posted(html: string, name: string) {
  return [...html.matchAll(/<input ([^>]*)\/?>/g)]
    .map((m) => m[1])
    .filter((attrs) => attrs.includes(`name="${name}"`))
    .filter((attrs) => /type="hidden"/.test(attrs) || / checked=""/.test(attrs))
    .map((attrs) => /value="([^"]*)"/.exec(attrs)?.[1])
}

describe('Toggle', () => {
  it('renders two radios on the server, so the choice works and posts true or false without JavaScript', () => {
    const on = renderToString(
      <Toggle name="visibility" label="Visibility" defaultChecked onLabel="Unhide" offLabel="Hide" />,
    )
    expect(on).toContain('<legend')
    expect(on).toContain('Visibility</legend>')
    expect(on).toMatch(/<input type="radio" name="visibility"[^>]*value="true"\/>Unhide<\/label>/)
    expect(on).toMatch(/<input type="radio" name="visibility"[^>]*value="false"\/>Hide<\/label>/)
    expect(posted(on, 'visibility')).toEqual(['true'])

    const off = renderToString(<Toggle name="preview" label="Preview" checked={false} onLabel="Yes" offLabel="No" />)
    expect(posted(off, 'preview')).toEqual(['false'])
  })
})

describe('ToggleSwitch (after hydration)', () => {
  it('is a labelled switch that posts exactly one true or false and shows the current word', () => {
    const on = renderToString(
      <ToggleSwitch name="visibility" label="Visibility" defaultChecked onLabel="Unhide" offLabel="Hide" />,
    )
    expect(on).toMatch(/role="switch"[^>]*aria-checked="true"/)
    expect(on).toContain('>Unhide</span>')
    expect(on).not.toContain('>Hide</span>')
    // Headless UI's own named checkbox would post "on" or nothing: the switch must carry no name
    expect(posted(on, 'visibility')).toEqual(['true'])
    expect(on).not.toContain('value="on"')

    const off = renderToString(<ToggleSwitch name="preview" label="Preview" checked={false} />)
    expect(off).toMatch(/aria-checked="false"/)
    expect(off).toContain('>No</span>')
    expect(posted(off, 'preview')).toEqual(['false'])
  })
})
