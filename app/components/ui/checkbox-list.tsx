/**
 * A choice of several as plain checkboxes, one a line: a form posts `name=<value>` once for each ticked
 * box, with or without JavaScript. `className` sets the list's box (its height, border and padding).
 */
export function CheckboxList({
  name,
  choices,
  checked,
  className,
}: {
  name: string
  choices: { value: string; label: string }[]
  /** the values ticked when the form is shown */
  checked: string[]
  className: string
}) {
  return (
    <ul className={className}>
      {choices.map((choice) => (
        <li key={choice.value}>
          <label className="flex cursor-pointer items-center gap-2 py-1 text-sm text-slate-700">
            <input
              type="checkbox"
              name={name}
              value={choice.value}
              defaultChecked={checked.includes(choice.value)}
              className="accent-brand-600"
            />
            {choice.label}
          </label>
        </li>
      ))}
    </ul>
  )
}
