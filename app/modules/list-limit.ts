import { z } from 'zod'

/** How many rows a list shows (`--limit` of a CLI list, a page's latest rows): 1 to 1000, `byDefault` when left out. */
export const listLimit = (byDefault: number) =>
  z.coerce
    .number({ invalid_type_error: 'Limit must be a number.' })
    .int('Limit must be a whole number.')
    .min(1, 'Limit must be at least 1.')
    .max(1000, 'Limit must be at most 1000.')
    .default(byDefault)
