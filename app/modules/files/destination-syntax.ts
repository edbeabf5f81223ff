// How a schedule names where it writes (scheduled exports, scheduled backups): an S3 prefix or an absolute
// server folder, both ending in /. Which of those the admin area may use is the server's rule
// (`refusedFromAdminArea` in destinations.server.ts); this is only the shape, checked in the browser too.

const BUCKET = '[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]'
const S3_PREFIX = new RegExp(`^s3://${BUCKET}/([^\\s]*/)?$`)

/**
 * Why a destination cannot take a schedule's files, or undefined: an S3 prefix or an absolute folder, both
 * ending in /. `what` names the files in the examples (`/var/exports/`, `s3://bucket/backups/`).
 */
export function destinationProblem(destination: string, what: 'exports' | 'backups'): string | undefined {
  if (destination.startsWith('s3://')) {
    if (!destination.endsWith('/'))
      return `An S3 destination is a prefix and must end with / (such as s3://bucket/${what}/).`
    if (!S3_PREFIX.test(destination) || destination.includes('//', 5))
      return `"${destination}" is not an S3 prefix (s3://bucket/ or s3://bucket/prefix/).`
    return undefined
  }
  if (!destination.startsWith('/'))
    return `A folder destination must be an absolute path (such as /var/${what}/), or use s3://bucket/prefix/.`
  if (!destination.endsWith('/')) return `A folder destination must end with / (such as /var/${what}/).`
  if (destination.split('/').includes('..')) return 'A folder destination may not contain "..".'
  return undefined
}
