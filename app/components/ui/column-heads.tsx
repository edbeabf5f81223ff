/**
 * The head row of a plain table: one column header per name, in order. A `false` or `null` name (a
 * column shown only to some) is left out.
 */
export function ColumnHeads({ names, className }: { names: readonly (string | false | null)[]; className: string }) {
  return (
    <thead className="bg-slate-50">
      <tr>
        {names.map((name) =>
          name ? (
            <th key={name} scope="col" className={className}>
              {name}
            </th>
          ) : null,
        )}
      </tr>
    </thead>
  )
}
