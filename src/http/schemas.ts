/** JSON Schemas of responses, derived from the registry; they drive serialisation and the OpenAPI document. */
import type { Field, RecordSet } from '../record-sets/define.js';

export const pageSchemaName = (rs: RecordSet): string => `Paginated${rs.schema}`;

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

export function recordSchema(rs: RecordSet): Record<string, unknown> {
  return {
    $id: rs.schema,
    title: rs.schema,
    description: rs.description,
    type: 'object',
    properties: Object.fromEntries(rs.fields.map((f) => [f.name, fieldSchema(f, !rs.key.includes(f.name))])),
    required: rs.fields.map((f) => f.name),
  };
}

export function pageSchema(rs: RecordSet): Record<string, unknown> {
  return {
    $id: pageSchemaName(rs),
    title: pageSchemaName(rs),
    type: 'object',
    properties: {
      items: { type: 'array', items: { $ref: `${rs.schema}#` } },
      total: { type: 'integer', description: 'Records matching the filters, all pages together' },
      skip: { type: 'integer' },
      limit: { type: 'integer' },
    },
    required: ['items', 'total', 'skip', 'limit'],
  };
}

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
