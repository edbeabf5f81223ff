import { z } from 'zod'

// The player's heartbeats, and the old client's video audit and access-log ping (docs/product.md#progress).

const id = (message: string) => z.string({ required_error: message, invalid_type_error: message }).uuid(message)
const seconds = z
  .number({ invalid_type_error: 'Seconds must be numbers.' })
  .int('Seconds must be whole numbers.')
  .min(0, 'Seconds cannot be negative.')
  .max(24 * 3600, 'Seconds must be under 24 hours.')

export const VideoProgressSchema = z.object({
  courseId: id('courseId must be a course id.'),
  videoId: id('videoId must be a video id.'),
  /** seconds played since the previous heartbeat, as [start, end) ranges */
  watched: z
    .array(z.tuple([seconds, seconds]), { invalid_type_error: 'watched must be a list of [start, end] ranges.' })
    .max(500, 'Too many ranges in one heartbeat.')
    .refine((ranges) => ranges.every(([start, end]) => start < end), 'Each range must end after it starts.'),
  position: seconds,
  /** the player's own idea of the length, used only for a video whose duration the admin left empty */
  duration: seconds.min(1).optional(),
})
export type VideoProgressInput = z.input<typeof VideoProgressSchema>

/** Numbers sent as strings by the old client ("videoDuration": "143"), numbers accepted too. */
const numeric = (name: string) =>
  z.preprocess(
    // plain decimal numbers only ("0x10" is not sixteen seconds)
    (v) => (typeof v === 'string' ? (/^\s*\d+(\.\d+)?\s*$/.test(v) ? Number(v) : Number.NaN) : v),
    z
      .number({ required_error: `${name} is required.`, invalid_type_error: `${name} must be a number.` })
      .finite(`${name} must be a number.`)
      .min(0, `${name} cannot be negative.`)
      .max(24 * 3600, `${name} must be under 24 hours.`),
  )

export const VideoAuditSchema = z.object({
  userId: id('userId must be a user id.'),
  courseId: id('courseId must be a course id.'),
  videoId: id('videoId must be a video id.'),
  videoDuration: numeric('videoDuration'),
  videoProgress: numeric('videoProgress'),
})
export type VideoAuditInput = z.input<typeof VideoAuditSchema>

export const PAGE_NAMES = ['My Courses', 'Explore Courses', 'Video'] as const

export const AccessLogPingSchema = z.object({
  pageName: z.enum(PAGE_NAMES, { message: `pageName must be one of ${PAGE_NAMES.join(', ')}.` }),
  /** the client's clock: accepted and ignored, the server's time is what is recorded */
  recordedDate: z.union([z.string().max(40), z.number()]).optional(),
  courseId: id('courseId must be a course id.').optional(),
  videoId: id('videoId must be a video id.').optional(),
})
export type AccessLogPingInput = z.input<typeof AccessLogPingSchema>

export const VideosProgressQuerySchema = z.object({
  userId: id('userId must be a user id.'),
  courseId: id('courseId must be a course id.'),
})
