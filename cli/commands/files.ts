import type { Command } from 'commander'
import { sweepUnattachedFiles } from '#app/modules/files/service.server.ts'
import { disconnect } from '#db/client.ts'
import { UsageError } from '../output.ts'

export function registerFiles(program: Command) {
  const files = program.command('files').description('uploaded files')

  files
    .command('sweep')
    .description('remove uploads that no course, program, document or assessment uses')
    .option('--older-than <hours>', 'only uploads older than this many hours', '24')
    .option('--json', 'print { removed, olderThanHours } as JSON')
    .action(async (options: { olderThan: string; json?: boolean }) => {
      const hours = Number(options.olderThan)
      if (!Number.isFinite(hours) || hours < 0)
        throw new UsageError('--older-than takes a number of hours (0 or more).')
      try {
        const count = await sweepUnattachedFiles({ olderThanMs: hours * 60 * 60 * 1000 })
        if (options.json) console.log(JSON.stringify({ removed: count, olderThanHours: hours }))
        else console.log(count === 1 ? 'Removed 1 unattached upload.' : `Removed ${count} unattached uploads.`)
      } finally {
        await disconnect()
      }
    })
}
