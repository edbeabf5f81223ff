import { disconnect } from '#db/client.ts'

/** Run a command's work, then close the database (and stop an embedded one this command started). */
export async function withDatabase<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work()
  } finally {
    await disconnect()
  }
}
