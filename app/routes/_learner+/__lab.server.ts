import { parseWithZod } from '@conform-to/zod'
import { micromark } from 'micromark'
import { getCourseContents } from '#app/modules/courses/learner.server.ts'
import { notFound } from '#app/modules/errors.ts'
import { AttemptSchema } from '#app/modules/labs/schema.ts'
import { getLab } from '#app/modules/labs/service.server.ts'
import { sessionsView } from '#app/modules/labs/session-exercises.server.ts'
import { requireUser } from '#app/utils/session.server.ts'

// The lab page's server side: here rather than in the route so micromark, the schema and zod stay out of
// the page's browser bundle (the form is validated by the action only, as the course page's is).

/** Markdown as HTML; micromark escapes raw HTML by default, so an author's `<script>` is shown, not run. */
const html = (markdown: string) => micromark(markdown)

/**
 * A lab as its page shows it: the course it is in (refused as the course pages refuse it), the lab with its
 * description, prompts and opened hints as HTML. A lab of another course is not found at this address.
 */
export async function loadLab(request: Request, courseId: string, labId: string) {
  const user = await requireUser(request)
  const course = await getCourseContents(user, courseId)
  const lab = await getLab(user, labId)
  if (lab.courseId !== course._id) throw notFound('No such lab.')
  return {
    user,
    course: { _id: course._id, title: course.title },
    lab: {
      id: lab.id,
      title: lab.title,
      minutes: lab.minutes,
      description: html(lab.description),
      tables: lab.tables.map((t) => ({
        name: t.name,
        columns: t.columns.map((c) => ({ name: c.name, type: c.type })),
      })),
      exercises: await Promise.all(
        lab.exercises.map(async (e) => ({
          key: e.key,
          check: e.check,
          // a two-session exercise's pair, as open now (null when the learner has none)
          sessions: e.check === 'sessions' ? await sessionsView(user, lab.id, e.key) : null,
          title: e.title,
          points: e.points,
          passed: e.passed,
          attempts: e.attempts,
          prompt: html(e.prompt),
          hints: e.hints.map(html),
        })),
      ),
    },
  }
}

/** An attempt's form (`exercise`, `sql`), as the lab page's action reads it. */
export function parseAttemptForm(formData: FormData) {
  return parseWithZod(formData, { schema: AttemptSchema })
}
