import { Description, Field, Label, Listbox, ListboxButton, ListboxOption, ListboxOptions } from '@headlessui/react'
import { useState } from 'react'
import { CheckboxList } from '#app/components/ui/checkbox-list.tsx'
import { useHydrated } from '#app/utils/use-hydrated.ts'

export type CourseFilterProps = {
  /** The form field: one `name=<course id>` per chosen course, none for every course. */
  name: string
  label: string
  courses: { _id: string; title: string }[]
  /** The ids chosen when the page was loaded. */
  defaultValue: string[]
  /** The choice's refusal, if a form refused it: described on the control. */
  errors?: string[]
}

const HINT = 'None chosen means every course.'

/**
 * A choice of several courses, for a filter or a form. Before JavaScript runs (or without it) the server
 * renders a checkbox per course, which a plain form posts as `name=<id>` once each; once hydrated the same choice
 * is Headless UI's Listbox (`multiple`), opened with the keyboard or a tap, Space or Enter picking an option
 * and leaving the list open. The Listbox gets no name (Headless UI would post `name[0]`, `name[1]`…): one
 * hidden input per chosen course posts exactly what the checkboxes post.
 */
export function CourseFilter(props: CourseFilterProps) {
  const hydrated = useHydrated()
  return hydrated ? <CourseListbox {...props} /> : <CourseCheckboxes {...props} />
}

/** The Listbox, as shown once JavaScript runs. Exported for tests. */
export function CourseListbox({ name, label, courses, defaultValue, errors }: CourseFilterProps) {
  const [chosen, setChosen] = useState(defaultValue)
  const titles = courses.filter((c) => chosen.includes(c._id)).map((c) => c.title)
  return (
    <Field>
      <Label className="field-label">{label}</Label>
      <Listbox value={chosen} onChange={setChosen} multiple>
        <ListboxButton className="field-input flex items-center justify-between gap-2 text-left">
          <span className="truncate">
            {titles.length === 0 ? 'Every course' : titles.length === 1 ? titles[0] : `${titles.length} courses`}
          </span>
          <svg viewBox="0 0 20 20" className="h-4 w-4 shrink-0 text-slate-500" fill="currentColor" aria-hidden>
            <path d="M5.3 7.3a1 1 0 011.4 0L10 10.6l3.3-3.3a1 1 0 111.4 1.4l-4 4a1 1 0 01-1.4 0l-4-4a1 1 0 010-1.4z" />
          </svg>
        </ListboxButton>
        <ListboxOptions
          anchor="bottom start"
          className="z-50 max-h-64 w-[var(--button-width)] min-w-56 overflow-y-auto rounded-md border border-slate-200 bg-white py-1 text-sm shadow-lg [--anchor-gap:4px] focus:outline-none"
        >
          {courses.map((course) => (
            <ListboxOption
              key={course._id}
              value={course._id}
              className="group flex cursor-pointer items-center gap-2 px-3 py-2 text-slate-700 data-[focus]:bg-slate-100"
            >
              <svg
                viewBox="0 0 20 20"
                className="invisible h-4 w-4 shrink-0 text-brand-600 group-data-[selected]:visible"
                fill="currentColor"
                aria-hidden
              >
                <path d="M16.7 5.3a1 1 0 010 1.4l-8 8a1 1 0 01-1.4 0l-4-4a1 1 0 111.4-1.4L8 12.6l7.3-7.3a1 1 0 011.4 0z" />
              </svg>
              {course.title}
            </ListboxOption>
          ))}
        </ListboxOptions>
      </Listbox>
      <Description className="mt-1 text-xs text-slate-500">{HINT}</Description>
      {errors?.[0] ? <Description className="field-error">{errors[0]}</Description> : null}
      {chosen.map((id) => (
        <input key={id} type="hidden" name={name} value={id} />
      ))}
    </Field>
  )
}

function CourseCheckboxes({ name, label, courses, defaultValue, errors }: CourseFilterProps) {
  const error = errors?.[0]
  return (
    <fieldset aria-describedby={error ? `${name}-filter-hint ${name}-filter-error` : `${name}-filter-hint`}>
      <legend className="field-label">{label}</legend>
      <CheckboxList
        name={name}
        choices={courses.map((course) => ({ value: course._id, label: course.title }))}
        checked={defaultValue}
        className="max-h-40 overflow-y-auto rounded-md border border-slate-300 bg-white px-3 py-2"
      />
      <p id={`${name}-filter-hint`} className="mt-1 text-xs text-slate-500">
        {HINT}
      </p>
      {error ? (
        <p id={`${name}-filter-error`} className="field-error">
          {error}
        </p>
      ) : null}
    </fieldset>
  )
}
