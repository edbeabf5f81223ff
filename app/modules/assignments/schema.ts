import { z } from 'zod'

// Spec §5: "Course is a required field to assign" and, for programs, "Course is required field to assign".
const id = (message: string) =>
  z.string({ required_error: message, invalid_type_error: message }).trim().min(1, message).uuid(message)

export const AssignCourseSchema = z.object({
  userId: id('User is required.'),
  courseId: id('Course is a required field to assign'),
})
export type AssignCourseInput = z.input<typeof AssignCourseSchema>

export const AssignProgramSchema = z.object({
  userId: id('User is required.'),
  programId: id('Course is required field to assign'),
})
export type AssignProgramInput = z.input<typeof AssignProgramSchema>
