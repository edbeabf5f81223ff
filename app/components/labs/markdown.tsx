/**
 * Markdown a lab's author wrote, as the server rendered it with micromark (raw HTML escaped): paragraphs,
 * lists, code and emphasis styled here, long words and code wrapped so a phone never scrolls sideways.
 */
const PROSE = [
  'space-y-3 text-slate-700 [overflow-wrap:anywhere]',
  '[&_ul]:list-disc [&_ul]:pl-6 [&_ol]:list-decimal [&_ol]:pl-6 [&_li]:mt-1',
  '[&_code]:rounded [&_code]:bg-slate-100 [&_code]:px-1 [&_code]:text-[0.9em] [&_code]:text-slate-800',
  '[&_pre]:whitespace-pre-wrap [&_pre]:rounded [&_pre]:bg-slate-50 [&_pre]:p-3 [&_pre_code]:bg-transparent',
  '[&_strong]:font-semibold [&_a]:text-brand-700 [&_a]:underline',
].join(' ')

export function Markdown({ html, className = '' }: { html: string; className?: string }) {
  return <div className={`${PROSE} ${className}`} dangerouslySetInnerHTML={{ __html: html }} />
}
