/**
 * The table of refusal codes (src/error-codes.ts) and the page's Spanish for them
 * (src/consulta/codigos.ts): every code the service can give has a Spanish text, the page knows no
 * code the service does not have, and the Spanish names only values the refusal carries.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { CODIGOS, enEspanol } from '../src/consulta/codigos.js';
import type { ErrorCode } from '../src/error-codes.js';
import { ERROR_CODES, errorMessage } from '../src/error-codes.js';

const names = (template: string): string[] => [...template.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!);
const codes = Object.keys(ERROR_CODES) as ErrorCode[];

describe('the refusal codes', () => {
  test('every code has a Spanish text, and the page has none for a code the service does not give', () => {
    for (const code of codes) assert.ok((CODIGOS[code] ?? '').trim().length > 0, `${code} has no Spanish text`);
    assert.deepEqual(Object.keys(CODIGOS).sort(), [...codes].sort());
  });

  test('a Spanish text names only values its English message names (and a batch line, which every file refusal may carry)', () => {
    for (const code of codes) {
      const carried = new Set([...names(ERROR_CODES[code].message), 'linea']);
      for (const name of names(CODIGOS[code])) assert.ok(carried.has(name), `${code}: the Spanish names {${name}}, which the refusal does not carry`);
    }
  });

  test('every code has a status a refusal has, and a message of its own words', () => {
    for (const code of codes) {
      const { status, message } = ERROR_CODES[code];
      assert.ok(status >= 400 && status < 600, code);
      assert.ok(message.trim().length > 0, code);
    }
  });

  test('the message and its Spanish are written with the values a refusal carries', () => {
    assert.equal(
      errorMessage('WEBHOOK_PORT', { port: 8444, ports: '443, 8443' }),
      'port 8444 is not allowed (443, 8443 only, as VIGILANCIAS_PUERTOS_PERMITIDOS says)',
    );
    assert.equal(
      enEspanol({ code: 'WEBHOOK_PORT', port: 8444, ports: '443, 8443' }),
      'El puerto 8444 no está permitido: use https:// sin puerto (el 443), o uno que el operador del servicio permita.',
    );
    assert.equal(
      enEspanol({ code: 'VIGILANCIA_LIMIT', limit: 3 }),
      'Ya tiene el máximo de vigilancias que el servicio permite por usuario (3). Borre una para crear otra.',
    );
    // No code, or one the page does not know: the caller says it in general words.
    assert.equal(enEspanol({ pattern: '^[0-9]{8}$' }), undefined);
    assert.equal(enEspanol({ code: 'NO_SUCH_CODE' }), undefined);
    assert.equal(enEspanol({ code: 'toString' }), undefined);
    assert.equal(enEspanol(undefined), undefined);
  });
});
