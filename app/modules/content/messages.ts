/** What the admin is told after deleting a video, naming the videos it no longer locks. */
export function videoDeletedMessage({ title, unlocked }: { title: string; unlocked: string[] }) {
  return unlocked.length
    ? `Video "${title}" deleted; it is no longer a prerequisite of ${unlocked.join(', ')}.`
    : `Video "${title}" deleted.`
}
