/** What the admin is told after deleting a video, naming the videos it no longer locks. */
export function videoDeletedMessage({ title, unlocked }: { title: string; unlocked: string[] }) {
  return unlocked.length
    ? `Video "${title}" deleted; it is no longer a prerequisite of ${unlocked.join(', ')}.`
    : `Video "${title}" deleted.`
}

/** What the admin is told after adding, changing or deleting a document or a scenario. */
export function documentMessage(kind: 'document' | 'scenario', action: 'added' | 'updated' | 'deleted') {
  return `${kind === 'scenario' ? 'Scenario' : 'Document'} ${action}.`
}
