import { z } from 'zod'
import { toDay } from '../access-log/schema.ts'

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
      // the access log's day rule, written the one way (yyyy-MM-dd)
      .refine((v) => toDay(v) === v, 'The day must be a date written yyyy-MM-dd.')
      .optional(),
  })
  .default({})
