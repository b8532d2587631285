/**
 * A watch list's body as the service keeps it: each fraction read as every `fraccion` parameter reads
 * it (any typed form), the record sets checked against the registry, the webhook URL against the
 * operator's policy; every refusal at once, in Pydantic's shapes.
 */
import type { VigilanciaInput } from '../vigilancias/vigilancias.js';
import type { VigilanciasService } from '../vigilancias/service.js';
import { refuseUrl } from '../vigilancias/outbound.js';
import type { ValidationDetail } from './errors.js';
import { RequestValidationError, valueError } from './errors.js';
import type { ParamSpec } from './params.js';
import { parseParams } from './params.js';
import type { Body } from './vigilancias-schemas.js';
import { RECORD_SET_PATHS } from './vigilancias-schemas.js';

const FRACTION_PARAM = [{ name: 'fraccion', in: 'query', kind: 'fraction', description: 'A fraction code' }] as const satisfies readonly ParamSpec[];

/** Each code as `fraccion` reads it (any typed form), at least 2 digits, in the order given without repeats. */
function normaliseFractions(typed: readonly string[]): { digits: string[]; errors: ValidationDetail[] } {
  const digits: string[] = [];
  const errors: ValidationDetail[] = [];
  typed.forEach((code, i) => {
    let value: string | undefined;
    try {
      value = parseParams(FRACTION_PARAM, {}, { fraccion: code }).fraccion;
    } catch (error) {
      if (!(error instanceof RequestValidationError)) throw error;
      for (const d of error.detail) errors.push({ ...d, loc: ['body', 'fracciones', i] });
      return;
    }
    if (value === undefined || value.length < 2) {
      errors.push({
        type: 'string_pattern_mismatch',
        msg: 'A fraction code of 2 to 8 digits, or 10 with its NICO',
        loc: ['body', 'fracciones', i],
        input: code,
        ctx: { pattern: '^[0-9]{2,8}$|^[0-9]{10}$' },
      });
      return;
    }
    if (!digits.includes(value)) digits.push(value);
  });
  return { digits, errors };
}

/** The refinement of a body its schema has checked (src/http/contract.ts): what JSON Schema cannot say about it. */
export async function readInput(parsed: Body, service: VigilanciasService): Promise<VigilanciaInput> {
  const { digits, errors } = normaliseFractions(parsed.fracciones);
  const conjuntos = parsed.conjuntos === undefined ? RECORD_SET_PATHS : [...new Set(parsed.conjuntos)];
  const expected = RECORD_SET_PATHS.map((p) => `'${p}'`).join(', ');
  (parsed.conjuntos ?? []).forEach((path, i) => {
    if (!RECORD_SET_PATHS.includes(path)) {
      errors.push({ type: 'enum', loc: ['body', 'conjuntos', i], msg: `Input should be ${expected}`, input: path, ctx: { expected } });
    }
  });
  if (conjuntos.length === 0) {
    errors.push({
      type: 'too_short',
      loc: ['body', 'conjuntos'],
      msg: 'List should have at least 1 item after validation',
      input: [],
      ctx: { field_type: 'List', min_length: 1 },
    });
  }
  if (errors.length === 0) {
    const refused = await refuseUrl(parsed.webhook.url, service.policy);
    if (refused !== undefined) errors.push(valueError(refused.code, ['body', 'webhook', 'url'], parsed.webhook.url, refused.params));
  }
  if (errors.length > 0) throw new RequestValidationError(errors);
  return { nombre: parsed.nombre, fracciones: digits, conjuntos: RECORD_SET_PATHS.filter((p) => conjuntos.includes(p)), url: parsed.webhook.url };
}
