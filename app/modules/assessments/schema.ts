import { z } from 'zod'
import { fileRef } from '../content/schema.ts'

// A learner's assessment: an uploaded file registered against one of the course's scenarios.

export const UploadAssessmentSchema = z.object({
  courseId: z.string({ required_error: 'Course is required.' }).uuid('Course is required.'),
  /** the old client sends it; it must be the caller */
  userId: z.string().uuid('userId must be a user id.').optional(),
  relatedScenarioId: z
    .string({ required_error: 'Please choose a scenario', invalid_type_error: 'Please choose a scenario' })
    .trim()
    .min(1, 'Please choose a scenario')
    .uuid('Please choose a scenario'),
  document: fileRef('Please Upload a document'),
})
export type UploadAssessmentInput = z.input<typeof UploadAssessmentSchema>
