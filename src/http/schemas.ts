/**
 * Schemas of responses, derived from the registry; they drive serialisation and the OpenAPI document,
 * and give the answers' types (a record set's record and page), which the page imports.
 */
import { Type } from '@sinclair/typebox';
import type { Static } from '@sinclair/typebox';
import type { Field, RecordOf, RecordSet } from '../record-sets/define.js';

export const pageSchemaName = (rs: RecordSet): string => `Paginated${rs.schema}`;

/** A text the data may lack, written as the original documents it (`type: [string, null]`, not `anyOf`). */
export const nullableText = (options: { description?: string } = {}) => Type.Unsafe<string | null>({ type: ['string', 'null'], ...options });

function fieldSchema(field: Field, nullable: boolean): Record<string, unknown> {
  const t = field.type;
  const of = (type: string): string | string[] => (nullable ? [type, 'null'] : type);
  const description = field.description ? { description: field.description } : {};
  switch (t.kind) {
    case 'int':
      return { type: of('integer'), ...description };
    case 'str':
      return { type: of('string'), maxLength: t.length, ...description };
    case 'text':
      return { type: of('string'), ...description };
    case 'dec':
      return {
        type: of('string'),
        pattern: `^-?\\d+${t.scale > 0 ? `\\.\\d{${t.scale}}` : ''}$`,
        description: `Decimal(${t.precision},${t.scale}) written with its scale${field.description ? `; ${field.description}` : ''}`,
      };
    case 'date8':
      return { type: of('string'), pattern: '^\\d{8}$', description: `Date YYYYMMDD${field.description ? `; ${field.description}` : ''}` };
  }
}

/** A record set's record, typed by its declared fields. */
export function recordSchema<RS extends RecordSet>(rs: RS) {
  return Type.Unsafe<RecordOf<RS>>({
    $id: rs.schema,
    title: rs.schema,
    description: rs.description,
    type: 'object',
    properties: Object.fromEntries(rs.fields.map((f) => [f.name, fieldSchema(f, !rs.key.includes(f.name))])),
    required: rs.fields.map((f) => f.name),
  });
}

/** A record set's record as the answers refer to it (its schema is registered under its name), typed by its fields. */
export const recordRef = <RS extends RecordSet>(rs: RS) => Type.Unsafe<RecordOf<RS>>({ $ref: `${rs.schema}#` });

/** A list of a record set's records, as the answers refer to them. */
export const recordsOf = <RS extends RecordSet>(rs: RS, options: { description?: string } = {}) => Type.Array(recordRef(rs), options);

/** A page of a paginated record set's search: its records (referring to the record's schema) and the total. */
export function pageSchema<RS extends RecordSet>(rs: RS) {
  return Type.Object(
    {
      items: recordsOf(rs),
      total: Type.Integer({ description: 'Records matching the filters, all pages together' }),
      skip: Type.Integer(),
      limit: Type.Integer(),
    },
    { $id: pageSchemaName(rs), title: pageSchemaName(rs) },
  );
}

/** A page of a paginated record set's search, as answered: `RecordPage<typeof fracciones>`. */
export type RecordPage<RS extends RecordSet> = Static<ReturnType<typeof pageSchema<RS>>>;

export const validationErrorSchema = {
  $id: 'ValidationError',
  title: 'ValidationError',
  type: 'object',
  properties: {
    type: { type: 'string', title: 'Error Type' },
    loc: { type: 'array', items: { anyOf: [{ type: 'string' }, { type: 'integer' }] }, title: 'Location' },
    msg: { type: 'string', title: 'Message' },
    input: { title: 'Input' },
    ctx: { type: 'object', title: 'Context', additionalProperties: true },
  },
  required: ['loc', 'msg', 'type'],
};

export const httpValidationErrorSchema = {
  $id: 'HTTPValidationError',
  title: 'HTTPValidationError',
  type: 'object',
  properties: { detail: { type: 'array', items: { $ref: 'ValidationError#' }, title: 'Detail' } },
};

export const errorMessageSchema = {
  $id: 'ErrorMessage',
  title: 'ErrorMessage',
  type: 'object',
  properties: { detail: { type: 'string' } },
  required: ['detail'],
};
