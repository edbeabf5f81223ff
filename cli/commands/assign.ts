import type { Command } from 'commander'
import { SYSTEM } from '#app/modules/auth/roles.ts'
import { assignCourse } from '#app/modules/assignments/service.server.ts'
import { findCourseByIdentifier } from '#app/modules/courses/service.server.ts'
import { findUserByIdentifier } from '#app/modules/users/service.server.ts'
import { disconnect } from '#db/client.ts'
import { UsageError } from '../output.ts'

export function registerAssign(program: Command) {
  const assign = program.command('assign').description('give learners courses')

  assign
    .command('course')
    .description('assign a course to a learner (assigning twice is harmless)')
    .option('--user <user>', "the learner's id, email or username")
    .option('--course <course>', "the course's id or exact title")
    .action(async (options: { user?: string; course?: string }) => {
      if (!options.user || !options.course) throw new UsageError('pass --user and --course.')
      try {
        const user = await findUserByIdentifier(options.user)
        const course = await findCourseByIdentifier(options.course)
        const { assigned } = await assignCourse(SYSTEM, { userId: user.id, courseId: course.id })
        console.log(
          assigned
            ? `Assigned "${course.title}" to ${user.userName}.`
            : `${user.userName} already has "${course.title}".`,
        )
      } finally {
        await disconnect()
      }
    })
}
