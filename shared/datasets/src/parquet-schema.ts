import type { SchemaElement, SchemaTree } from 'hyparquet';
import { AppError, ErrorCode } from '@rl/service-kit/core';
import type { DataType, Field, ScalarKind } from './data-type.ts';

// Parquet physical type plus annotation -> Arrow-style type, for the leaves we name.
function leafType(el: SchemaElement): DataType {
  const logical = el.logical_type;
  const converted = el.converted_type;
  switch (el.type) {
    case 'BOOLEAN':
      return { kind: 'bool' };
    case 'FLOAT':
      return { kind: 'float' };
    case 'DOUBLE':
      return { kind: 'double' };
    case 'INT32':
    case 'INT64': {
      const plain = el.type === 'INT32' ? 'int32' : 'int64';
      if (logical === undefined && (converted === undefined || converted === 'INT_32' || converted === 'INT_64')) return { kind: plain };
      if (logical?.type === 'INTEGER' && logical.isSigned && `int${logical.bitWidth}` === plain) return { kind: plain };
      return { kind: 'other', description: describeAnnotated(el) };
    }
    case 'BYTE_ARRAY':
      if (logical?.type === 'STRING' || logical?.type === 'ENUM' || converted === 'UTF8' || converted === 'ENUM') return { kind: 'string' };
      if (logical?.type === 'JSON' || converted === 'JSON') return { kind: 'json' };
      if (logical === undefined && converted === undefined) return { kind: 'binary' };
      return { kind: 'other', description: describeAnnotated(el) };
    default:
      return { kind: 'other', description: describeAnnotated(el) };
  }
}

function describeAnnotated(el: SchemaElement): string {
  const annotation = el.logical_type?.type ?? el.converted_type;
  const physical = el.type === 'FIXED_LEN_BYTE_ARRAY' ? `FIXED_LEN_BYTE_ARRAY(${el.type_length ?? '?'})` : String(el.type);
  return annotation === undefined ? physical : `${physical} (${annotation})`;
}

const isListGroup = (el: SchemaElement) => el.converted_type === 'LIST' || el.logical_type?.type === 'LIST';
const isMapGroup = (el: SchemaElement) => el.converted_type === 'MAP' || el.converted_type === 'MAP_KEY_VALUE' || el.logical_type?.type === 'MAP';

// The type of a node ignoring its own repetition.
function nodeType(node: SchemaTree): DataType {
  const el = node.element;
  const [repeated] = node.children;
  if (isListGroup(el) && node.children.length === 1 && repeated !== undefined) {
    // Standard 3-level list (list/element); the legacy 2-level forms make the repeated node itself the element.
    const threeLevel = repeated.children.length === 1 && repeated.element.name !== 'array' && repeated.element.name !== `${el.name}_tuple`;
    const inner = threeLevel ? repeated.children[0]! : repeated;
    return { kind: 'list', element: nodeType(inner), elementNullable: threeLevel && inner.element.repetition_type !== 'REQUIRED' };
  }
  if (isMapGroup(el) && repeated !== undefined && repeated.children.length === 2) {
    return { kind: 'map', key: nodeType(repeated.children[0]!), value: nodeType(repeated.children[1]!) };
  }
  if (node.children.length > 0) return { kind: 'struct', fields: node.children.map(fieldOfNode) };
  return leafType(el);
}

function fieldOfNode(node: SchemaTree): Field {
  const rep = node.element.repetition_type;
  // A bare REPEATED field (no LIST annotation) is a list of required values.
  if (rep === 'REPEATED') return { name: node.element.name, type: { kind: 'list', element: nodeType(node), elementNullable: false }, nullable: false };
  return { name: node.element.name, type: nodeType(node), nullable: rep !== 'REQUIRED' };
}

/** The columns of a parquet schema tree (hyparquet's `parquetSchema(metadata)`), as Arrow-style fields. */
export function fieldsFromParquet(root: SchemaTree): Field[] {
  return root.children.map(fieldOfNode);
}

const SCALAR_ELEMENTS = {
  string: { type: 'BYTE_ARRAY', converted_type: 'UTF8', logical_type: { type: 'STRING' } },
  json: { type: 'BYTE_ARRAY', converted_type: 'JSON', logical_type: { type: 'JSON' } },
  binary: { type: 'BYTE_ARRAY' },
  bool: { type: 'BOOLEAN' },
  int32: { type: 'INT32' },
  int64: { type: 'INT64' },
  float: { type: 'FLOAT' },
  double: { type: 'DOUBLE' },
} as const satisfies Record<ScalarKind, Omit<SchemaElement, 'name'>>;

function elementsOf(name: string, type: DataType, nullable: boolean, path: string): SchemaElement[] {
  const repetition_type = nullable ? 'OPTIONAL' : 'REQUIRED';
  switch (type.kind) {
    case 'list':
      // The 3-level list/element layout pyarrow writes by default.
      return [
        { name, repetition_type, converted_type: 'LIST', logical_type: { type: 'LIST' }, num_children: 1 },
        { name: 'list', repetition_type: 'REPEATED', num_children: 1 },
        ...elementsOf('element', type.element, type.elementNullable, `${path}[]`),
      ];
    case 'struct':
      if (type.fields.length === 0) throw new AppError(ErrorCode.BadRequest, `${path}: a struct needs at least one member`);
      return [
        { name, repetition_type, num_children: type.fields.length },
        ...type.fields.flatMap((f) => elementsOf(f.name, f.type, f.nullable ?? true, `${path}.${f.name}`)),
      ];
    case 'map':
    case 'other':
      throw new AppError(ErrorCode.BadRequest, `${path}: the writer cannot write ${type.kind} columns`);
    default:
      return [{ name, repetition_type, ...SCALAR_ELEMENTS[type.kind] }];
  }
}

/** The flat (pre-order) parquet schema hyparquet-writer takes for these columns. */
export function parquetSchemaOf(fields: readonly Field[]): SchemaElement[] {
  if (fields.length === 0) throw new AppError(ErrorCode.BadRequest, 'a parquet file needs at least one column');
  const names = new Set<string>();
  for (const f of fields) {
    if (names.has(f.name)) throw new AppError(ErrorCode.BadRequest, `duplicate column ${f.name}`);
    names.add(f.name);
  }
  return [{ name: 'schema', num_children: fields.length }, ...fields.flatMap((f) => elementsOf(f.name, f.type, f.nullable ?? true, f.name))];
}
