const COURSE_AT = /^courses\[(\d{1,4})\]$/

/**
 * The program form (new and edit) as the schema reads it: the chosen courses, posted as
 * `courses[position]`, become one repeated `courses` field in that order.
 */
export function programFormData(fields: Record<string, string>) {
  const formData = new FormData()
  const courses: [number, string][] = []
  for (const [name, value] of Object.entries(fields)) {
    const course = COURSE_AT.exec(name)
    if (course) courses.push([Number(course[1]), value])
    else formData.set(name, value)
  }
  for (const [, courseId] of courses.sort(([a], [b]) => a - b)) formData.append('courses', courseId)
  return formData
}
