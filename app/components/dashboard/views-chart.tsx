import { format } from 'date-fns/format'
import { parseISO } from 'date-fns/parseISO'
import { useEffect, useRef, useState } from 'react'
import type { ViewsOnDay } from '#app/modules/dashboard/service.server.ts'

// Video views per day as a bar chart, drawn by Chart.js in the browser only: the library is loaded on
// demand by this component (bar-chart.client.ts), so the server never runs it and no other page's
// bundle carries it. Until it
// has drawn (or without JavaScript) the box shows the same figures in words, and a "Show as table"
// below gives every day's number to anyone, screen readers included.

const BAR_COLOUR = '#2f6fdf' // brand-500
const GRID_COLOUR = '#e2e8f0' // slate-200

/** "3 Apr" for a yyyy-MM-dd day, read as the calendar day it names. */
export const shortDay = (day: string) => format(parseISO(day), 'd MMM')
/** "Friday, 3 April 2026". */
export const longDay = (day: string) => format(parseISO(day), 'EEEE, d MMMM yyyy')

/** The chart in one sentence: total, busiest day, days without views. */
function viewsSummary(days: ViewsOnDay[]): string {
  const total = days.reduce((sum, d) => sum + d.views, 0)
  if (total === 0) return `No video views in the last ${days.length} days.`
  const busiest = days.reduce((top, d) => (d.views > top.views ? d : top), days[0])
  const idle = days.filter((d) => d.views === 0).length
  return (
    `${total.toLocaleString('en-US')} video views in the last ${days.length} days; ` +
    `the busiest day was ${longDay(busiest.day)} with ${busiest.views.toLocaleString('en-US')}` +
    (idle ? `; ${idle} ${idle === 1 ? 'day' : 'days'} without views.` : '.')
  )
}

export function ViewsChart({ days }: { days: ViewsOnDay[] }) {
  const canvas = useRef<HTMLCanvasElement>(null)
  const [drawn, setDrawn] = useState(false)

  useEffect(() => {
    let cancelled = false
    let destroy: (() => void) | undefined
    void import('./bar-chart.client.ts').then(({ drawBarChart }) => {
      if (cancelled || !canvas.current) return
      destroy = drawBarChart(canvas.current, {
        labels: days.map((d) => shortDay(d.day)),
        values: days.map((d) => d.views),
        titles: days.map((d) => longDay(d.day)),
        colour: BAR_COLOUR,
        gridColour: GRID_COLOUR,
      })
      setDrawn(true)
    })
    return () => {
      cancelled = true
      destroy?.()
    }
  }, [days])

  return (
    <div className="relative h-56 sm:h-72" data-testid="views-chart" data-drawn={drawn ? 'true' : 'false'}>
      {drawn ? null : <p className="absolute inset-0 p-4 text-sm text-slate-600">{viewsSummary(days)}</p>}
      <canvas ref={canvas} role="img" aria-label={`Bar chart. ${viewsSummary(days)}`} />
    </div>
  )
}
