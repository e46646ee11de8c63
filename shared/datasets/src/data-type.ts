/**
 * Column types of a parquet file, in Arrow's vocabulary (what pyarrow prints),
 * so the reader, the writer and `rl-data inspect` describe a file the same way.
 */

/** Leaf types the writer can produce; the reader may also report `other`. */
export type ScalarKind = 'string' | 'bool' | 'int32' | 'int64' | 'float' | 'double' | 'binary' | 'json';

/** A column's type, nested as deep as the file is. */
export type DataType =
  | { kind: ScalarKind }
  | { kind: 'list'; element: DataType; elementNullable: boolean }
  | { kind: 'struct'; fields: Field[] }
  | { kind: 'map'; key: DataType; value: DataType }
  | { kind: 'other'; description: string };

/** A named column or struct member. */
export interface Field {
  name: string;
  type: DataType;
  /** pyarrow writes every column and member nullable, so that is the default. @default true */
  nullable?: boolean;
}

/** Builds a scalar type. */
export const scalar = (kind: ScalarKind): DataType => ({ kind });

/** Builds a list type whose elements are nullable, as pyarrow writes them. */
export const listOf = (element: DataType, elementNullable = true): DataType => ({ kind: 'list', element, elementNullable });

/** Builds a struct type from `{name: type}` in the given member order. */
export function structOf(members: Record<string, DataType>): DataType {
  return { kind: 'struct', fields: fieldsOf(members) };
}

/** Builds nullable fields from `{name: type}` in the given order. */
export function fieldsOf(members: Record<string, DataType>): Field[] {
  return Object.entries(members).map(([name, type]) => ({ name, type, nullable: true }));
}

/** Renders a type the way pyarrow prints it, e.g. `list<element: struct<content: string, role: string>>`. */
export function formatDataType(type: DataType): string {
  switch (type.kind) {
    case 'list':
      return `list<element: ${formatDataType(type.element)}>`;
    case 'struct':
      return `struct<${type.fields.map((f) => `${f.name}: ${formatDataType(f.type)}`).join(', ')}>`;
    case 'map':
      return `map<${formatDataType(type.key)}, ${formatDataType(type.value)}>`;
    case 'other':
      return type.description;
    default:
      return type.kind;
  }
}
