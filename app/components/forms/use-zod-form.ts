import { useForm, type DefaultValue, type SubmissionResult } from '@conform-to/react'
import { parseWithZod } from '@conform-to/zod'
import { type input, type output, type ZodTypeAny } from 'zod'

/** The fields a schema reads; any, for a schema that takes anything first (`z.preprocess`). */
type Fields<Schema extends ZodTypeAny> =
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- what conform assumes when it cannot tell
  input<Schema> extends Record<string, unknown> ? input<Schema> : Record<string, any>

/**
 * A conform form checked in the browser by the same zod schema the server uses: first when a field is
 * left, then again as it is typed in; with `checkOnSubmit`, only when it is posted (a form of one
 * choice, which would otherwise say what is missing as soon as the keyboard passes through it).
 * `prepare` changes what is checked (not what is posted).
 */
export function useZodForm<Schema extends ZodTypeAny>(
  schema: Schema,
  {
    prepare,
    checkOnSubmit = false,
    ...options
  }: {
    id: string
    lastResult?: SubmissionResult<string[]>
    defaultValue?: DefaultValue<Fields<Schema>>
    prepare?: (formData: FormData) => FormData
    checkOnSubmit?: boolean
  },
) {
  return useForm<Fields<Schema>, output<Schema>>({
    ...options,
    onValidate: ({ formData }) => parseWithZod(prepare ? prepare(formData) : formData, { schema }),
    shouldValidate: checkOnSubmit ? 'onSubmit' : 'onBlur',
    shouldRevalidate: checkOnSubmit ? 'onSubmit' : 'onInput',
  })
}

/**
 * The values a field of several (checkboxes, a choice of courses) starts with when a form is shown again,
 * whether conform read none, one or several.
 */
export function initialValues(value: unknown): string[] {
  const list = Array.isArray(value) ? value : [value]
  return list.filter((item): item is string => typeof item === 'string')
}
