import { useEffect, useId, useRef, useState } from 'react'
import { SortableList } from '#app/components/ui/sortable-list.tsx'
import { useHydrated } from '#app/utils/use-hydrated.ts'

type ProgramCoursesProps = {
  /** every course, in the order the list shows them */
  courses: { _id: string; title: string }[]
  /** the courses chosen before (a form shown again), in their order */
  defaultValue: string[]
  errors?: string[]
  /** called after the choice or its order changed and the form's inputs show it */
  onChange?: () => void
}

/**
 * The courses a program bundles, in order. Each chosen course is posted as `courses[position]`
 * (indexed names, so a multipart form read field by field keeps every one and their order).
 *
 * Without JavaScript the checkboxes themselves carry those names, each with its place in the list,
 * so the program keeps the courses in the order listed. With JavaScript the checkboxes only choose;
 * the chosen courses appear below in a list the admin puts in order (drag, keyboard, or the Move up
 * and Move down buttons), and hidden inputs carry that order.
 */
export function ProgramCourses({ courses, defaultValue, errors, onChange }: ProgramCoursesProps) {
  const hydrated = useHydrated()
  const id = useId()
  const hintId = `${id}-hint`
  const errorId = `${id}-error`
  const [chosen, setChosen] = useState(() =>
    defaultValue.filter(
      (courseId, index) => defaultValue.indexOf(courseId) === index && courses.some((c) => c._id === courseId),
    ),
  )
  const titles = new Map(courses.map((course) => [course._id, course.title]))

  // let the form revalidate once the hidden inputs carry the new choice, not before
  const changed = useRef(false)
  useEffect(() => {
    if (!changed.current) return
    changed.current = false
    onChange?.()
  }, [chosen, onChange])
  const choose = (next: string[]) => {
    changed.current = true
    setChosen(next)
  }

  const error = errors?.[0]
  return (
    // min-w-0: a fieldset is as wide as its widest line by default, and the course titles are long
    <fieldset className="min-w-0" aria-describedby={[hintId, error ? errorId : null].filter(Boolean).join(' ')}>
      <legend className="field-label">Courses</legend>
      <p id={hintId} className="mb-2 text-xs text-slate-500">
        {hydrated
          ? 'Tick the courses the program bundles, then put the chosen ones in the order learners should take them.'
          : 'Tick the courses the program bundles. The program keeps them in the order listed here.'}
      </p>
      {courses.length === 0 ? (
        <p className="text-sm text-slate-600">There are no courses yet. Add a course first.</p>
      ) : (
        <ul
          className={`max-h-60 space-y-1 overflow-y-auto rounded-md border p-2 ${error ? 'border-red-500' : 'border-slate-200'}`}
        >
          {courses.map((course, index) => (
            <li key={course._id}>
              <label className="flex items-center gap-2 text-sm">
                <input
                  type="checkbox"
                  // with JavaScript the hidden inputs below carry the chosen order instead
                  name={hydrated ? undefined : `courses[${index}]`}
                  value={course._id}
                  checked={chosen.includes(course._id)}
                  onChange={(event) =>
                    choose(
                      event.currentTarget.checked
                        ? [...chosen.filter((c) => c !== course._id), course._id]
                        : chosen.filter((c) => c !== course._id),
                    )
                  }
                  aria-invalid={error ? true : undefined}
                  className="h-4 w-4 rounded border-slate-300 text-brand-600 focus:ring-brand-500"
                />
                {course.title}
              </label>
            </li>
          ))}
        </ul>
      )}
      {hydrated && chosen.length > 0 ? (
        <div className="mt-3">
          <p className="field-label">Order in the program</p>
          <SortableList
            label="Order of the program's courses"
            items={chosen.map((courseId) => ({ id: courseId, label: titles.get(courseId) ?? courseId }))}
            onChange={(items) => choose(items.map((item) => item.id))}
          />
          {chosen.map((courseId, position) => (
            <input key={courseId} type="hidden" name={`courses[${position}]`} value={courseId} />
          ))}
        </div>
      ) : null}
      <p id={errorId} className="field-error">
        {error}
      </p>
    </fieldset>
  )
}
