// What a service answers for a database row: the columns it names, in that order, under their
// camelCase names (created_at -> createdAt), timestamps as ISO 8601 strings. Views that nest or
// rename a column add it beside the mapped ones.

type CamelCase<S extends string> = S extends `${infer Head}_${infer Tail}`
  ? `${Head}${Capitalize<CamelCase<Tail>>}`
  : S;

type Shown<V> = V extends Date ? string : V;

export type RowView<Row, Key extends keyof Row & string> = {
  [K in Key as CamelCase<K>]: Shown<Row[K]>;
};

const camelNames = new Map<string, string>();

function camelCase(column: string): string {
  let name = camelNames.get(column);
  if (name === undefined) {
    name = column.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());
    camelNames.set(column, name);
  }
  return name;
}

export function rowView<Row, Key extends keyof Row & string>(
  row: Row,
  columns: readonly Key[],
): RowView<Row, Key> {
  const view: Record<string, unknown> = {};
  for (const column of columns) {
    const value = row[column];
    view[camelCase(column)] = value instanceof Date ? value.toISOString() : value;
  }
  return view as RowView<Row, Key>;
}
