import { z } from 'zod'
import { CertificateFields } from '../certificates/settings.ts'
import { fileRef, required, uuid } from '../content/schema.ts'
import { ReminderSwitchField } from '../deadlines/settings-form.ts'

// A course's own fields as the admin forms, the /api calls and the CLI send them; its videos,
// documents and scenarios are validated in content/schema.ts.
// One field, `title`, everywhere in the code. The two forms label it as their screens always have,
// "Course Title" when a course is added and "Course Name" when it is edited, and their refusals keep
// those words: integrations and people match on them.

export const NewCourseSchema = z.object({
  title: required('Course Title is required field.', 200),
  description: required('Please enter course description.'),
  courseImage: fileRef('Please Upload the Image.'),
})
export type NewCourseInput = z.input<typeof NewCourseSchema>

export const EditCourseSchema = z
  .object({
    courseId: uuid('Course is required.'),
    title: required('Course Name is required field.', 200),
    description: required('Description is required field.'),
    courseImage: fileRef('Course Image is required.'),
  })
  // the /api's call also takes the certificate settings and the reminders switch, each left out to keep it (the
  // page sets them apart)
  .merge(CertificateFields)
  .merge(ReminderSwitchField)
export type EditCourseInput = z.input<typeof EditCourseSchema>
