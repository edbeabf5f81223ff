import type { Command } from 'commander'
import type { BridgeTarget } from '#app/modules/bridge/schema.ts'
import { mintBridgeLink } from '#app/modules/bridge/service.server.ts'
import { findCourseByIdentifier } from '#app/modules/courses/catalogue.server.ts'
import { disconnect } from '#db/client.ts'
import { UsageError } from '../output.ts'

type LinkOptions = { user?: string; course?: string; program?: boolean; admin?: boolean }

export function registerBridge(program: Command) {
  const bridge = program.command('bridge').description('one-use sign-in links for the partner bridge')

  bridge
    .command('link')
    .description(
      'print a single-use sign-in link, valid 5 minutes, as a partner system would make it ' +
        '(built from PUBLIC_URL; without --course or --admin it opens My Courses)',
    )
    .option('--user <user>', "the user's email or external id (a username or id works too)")
    .option('--course <course>', 'open this course (its id or exact title)')
    .option('--program', 'open My Courses (/ibridge/program/…)')
    .option('--admin', 'open the admin dashboard (/ibridge/admin/…); admins and coaches only')
    .action(async (options: LinkOptions) => {
      if (!options.user) throw new UsageError('pass --user <email or external id>.')
      const chosen = [options.course !== undefined, options.program, options.admin].filter(Boolean).length
      if (chosen > 1) throw new UsageError('pass only one of --course, --program and --admin.')
      try {
        let target: BridgeTarget = { kind: options.admin ? 'admin' : 'program' }
        let courseTitle = ''
        if (options.course !== undefined) {
          const course = await findCourseByIdentifier(options.course)
          target = { kind: 'course', courseId: course.id }
          courseTitle = course.title
        }
        const { url, user, expiresAt, courseAssigned } = await mintBridgeLink({ user: options.user, target })
        // the link alone on stdout, so that scripts can take it; notes go to stderr
        console.log(url)
        console.error(`For ${user.userName}; works once, until ${expiresAt.toISOString()}.`)
        if (courseAssigned === false)
          console.error(`Note: "${courseTitle}" is not assigned to ${user.userName}; the link will open My Courses.`)
      } finally {
        await disconnect()
      }
    })
}
