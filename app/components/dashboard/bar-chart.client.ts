import { BarController, BarElement, CategoryScale, Chart, LinearScale, Tooltip } from 'chart.js'

// The parts of Chart.js the dashboard uses, and nothing else: this module is loaded on demand by the
// chart component, so only the pieces named here end up in its bundle.

Chart.register(BarController, BarElement, CategoryScale, LinearScale, Tooltip)

type Bars = { labels: string[]; values: number[]; titles: string[]; colour: string; gridColour: string }

/** Draws a bar chart into the canvas; returns the function that takes it down again. */
export function drawBarChart(canvas: HTMLCanvasElement, bars: Bars): () => void {
  const chart = new Chart(canvas, {
    type: 'bar',
    data: {
      labels: bars.labels,
      datasets: [{ label: 'Views', data: bars.values, backgroundColor: bars.colour, borderRadius: 2 }],
    },
    options: {
      responsive: true,
      maintainAspectRatio: false,
      animation: false,
      plugins: {
        legend: { display: false },
        tooltip: { callbacks: { title: (items) => bars.titles[items[0].dataIndex] } },
      },
      scales: {
        x: { grid: { display: false }, ticks: { maxRotation: 0, autoSkipPadding: 12 } },
        y: { beginAtZero: true, grid: { color: bars.gridColour }, ticks: { precision: 0 } },
      },
    },
  })
  return () => chart.destroy()
}
