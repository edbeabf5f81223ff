const FORMAT = new Intl.DateTimeFormat('en-GB', { dateStyle: 'medium', timeStyle: 'short', timeZone: 'UTC' })

/** A moment's date and time as the admin pages show it, in UTC so that server and browser agree. */
export const formatUtc = (iso: string) => `${FORMAT.format(new Date(iso))} UTC`

/** A moment as a `<time>`, or a dash when there is none. */
export function UtcTime({ iso }: { iso: string | null }) {
  if (!iso) return <>—</>
  return <time dateTime={iso}>{formatUtc(iso)}</time>
}
