import { Description, Field, Label, Switch } from '@headlessui/react'
import { useState } from 'react'
import { useHydrated } from '#app/utils/use-hydrated.ts'

type ToggleProps = {
  /** The form field; it posts exactly one value, "true" or "false". */
  name: string
  label: string
  /** Controlled value; leave it out and use `defaultChecked` for a plain form field. */
  checked?: boolean
  defaultChecked?: boolean
  onChange?: (checked: boolean) => void
  /** The word shown for true: "Unhide" for Visibility, "Yes" for Preview. */
  onLabel?: string
  /** The word shown for false: "Hide", "No". */
  offLabel?: string
  disabled?: boolean
}

/**
 * An on/off field that posts `name=true` or `name=false`, whatever the server reads it with.
 *
 * Headless UI's own `name` support posts a checkbox ("on", and nothing at all when off), so the
 * Switch gets no name and a hidden input carries the value instead. Before JavaScript runs (or
 * without it) a Switch cannot be flipped, so the server renders the same choice as two radio
 * buttons, which post the same two values; they become the Switch once the page is hydrated.
 */
export function Toggle(props: ToggleProps) {
  const hydrated = useHydrated()
  return hydrated ? <ToggleSwitch {...props} /> : <ToggleRadios {...props} />
}

/** The Switch, as shown once JavaScript runs. Exported for tests. */
export function ToggleSwitch({
  name,
  label,
  checked,
  defaultChecked = false,
  onChange,
  onLabel = 'Yes',
  offLabel = 'No',
  disabled = false,
}: ToggleProps) {
  const [own, setOwn] = useState(defaultChecked)
  const value = checked ?? own
  const change = (next: boolean) => {
    if (checked === undefined) setOwn(next)
    onChange?.(next)
  }
  return (
    <Field disabled={disabled} className="flex items-center gap-3 data-[disabled]:opacity-50">
      <Label className="text-sm font-medium text-slate-700">{label}</Label>
      <Switch
        checked={value}
        onChange={change}
        className="group relative inline-flex h-6 w-11 shrink-0 cursor-pointer items-center rounded-full bg-slate-300 transition-colors data-[checked]:bg-brand-600 data-[disabled]:cursor-not-allowed"
      >
        <span
          aria-hidden
          className="inline-block h-4 w-4 translate-x-1 rounded-full bg-white shadow transition-transform group-data-[checked]:translate-x-6 motion-reduce:transition-none"
        />
      </Switch>
      {/* The current state's word; read out after the label and the switch's on/off. */}
      <Description as="span" className="min-w-[3.5rem] text-sm text-slate-700">
        {value ? onLabel : offLabel}
      </Description>
      <input type="hidden" name={name} value={value ? 'true' : 'false'} />
    </Field>
  )
}

function ToggleRadios({
  name,
  label,
  checked,
  defaultChecked = false,
  onLabel = 'Yes',
  offLabel = 'No',
  disabled = false,
}: ToggleProps) {
  const value = checked ?? defaultChecked
  return (
    <fieldset disabled={disabled} className="flex items-center gap-3">
      <legend className="float-left mr-3 text-sm font-medium text-slate-700">{label}</legend>
      <div className="inline-flex overflow-hidden rounded-md border border-slate-300 text-sm">
        {[true, false].map((option) => (
          <label
            key={String(option)}
            className="flex cursor-pointer items-center gap-1.5 px-3 py-1 text-slate-700 has-[:checked]:bg-brand-50 has-[:checked]:text-brand-700"
          >
            <input
              type="radio"
              name={name}
              value={option ? 'true' : 'false'}
              defaultChecked={value === option}
              className="accent-brand-600"
            />
            {option ? onLabel : offLabel}
          </label>
        ))}
      </div>
    </fieldset>
  )
}
