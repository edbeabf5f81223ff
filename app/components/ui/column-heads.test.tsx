import { renderToString } from 'react-dom/server'
import { describe, expect, it } from 'vitest'
import { parsePage } from '#tests/render.tsx'
import { ColumnHeads } from './column-heads.tsx'

describe('ColumnHeads', () => {
  it('gives each named column a header in order, and leaves out a column shown only to some', () => {
    const html = renderToString(
      <table>
        <ColumnHeads names={['Name', 'When', false, null, 'Actions']} className="px-4" />
        <tbody>
          <tr>
            <td>a</td>
            <td>b</td>
            <td>c</td>
          </tr>
        </tbody>
      </table>,
    )
    const page = parsePage(html)
    const heads = page.getAllByRole('columnheader')
    expect(heads.map((h) => h.textContent)).toEqual(['Name', 'When', 'Actions'])
    for (const head of heads) expect(head).toHaveAttribute('scope', 'col')
  })
})
