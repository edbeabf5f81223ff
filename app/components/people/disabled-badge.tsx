/** "Disabled" in a pill beside an account's name: the word says it, the colour only helps (docs/product.md#disabled-accounts). */
export function DisabledBadge() {
  return (
    <span className="ml-1 inline-block whitespace-nowrap rounded-full bg-slate-200 px-2 py-0.5 align-middle text-xs font-semibold text-slate-800">
      Disabled
    </span>
  )
}
