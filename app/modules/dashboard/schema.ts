import { format } from 'date-fns/format'
import { isValid } from 'date-fns/isValid'
import { parse } from 'date-fns/parse'
import { z } from 'zod'

// What the dashboard may be asked: nothing but, optionally, the UTC day its figures end on (today by
// default). The CLI, the bench and the tests name a day; the page always shows today.

/** How many days the chart and the most-watched list look back, today included. */
export const DASHBOARD_DAYS = 30
/** How many videos the most-watched list shows. */
export const TOP_VIDEOS = 5

export const DashboardQuerySchema = z
  .object({
    today: z
      .string()
      .refine((v) => {
        const date = parse(v, 'yyyy-MM-dd', new Date(0))
        return isValid(date) && format(date, 'yyyy-MM-dd') === v
      }, 'The day must be a date written yyyy-MM-dd.')
      .optional(),
  })
  .default({})
export type DashboardQuery = z.output<typeof DashboardQuerySchema>
