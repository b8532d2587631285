/**
 * The page's views as functions, without a browser (issue 23): the page's own modules, imported as the
 * browser imports them, turn the service's real refusals into the Spanish a person reads. Each refusal
 * comes from a started service over real HTTP, so a message the service changes, and the page no
 * longer recognises, fails here rather than falling through to a general sentence on the page.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ApiError } from '../src/consulta/api.js';
import { date8, dotted, fractionDigits, plain } from '../src/consulta/dom.js';
import { refusal } from '../src/consulta/lotes.js';
import type { Body } from '../src/consulta/vigilancias.js';
import { codeDigits, missing, pastedLines, refusals } from '../src/consulta/vigilancias.js';
import type { Running } from './helpers.js';
import { database, serve } from './helpers.js';

/** The service's answer to a request as the test user, as the page's ApiError carries it. */
async function refused(server: Running, method: string, path: string, body: string, type: string): Promise<ApiError> {
  const response = await fetch(server.base + path, { method, headers: { authorization: `Bearer ${server.token}`, 'content-type': type }, body });
  assert.ok(response.status >= 400, `${path} answered ${response.status}`);
  return new ApiError(response.status, ((await response.json()) as { detail: unknown }).detail);
}

describe('the page turns what the service refuses into Spanish (no browser)', () => {
  test('a batch file the service refuses is said with its line, never as the general sentence', async (t) => {
    const server = await serve(t, { DATABASE_URL: (await database(t, 'sqlite')).url });
    const cases: [string, string, RegExp][] = [
      [
        'referencia,valor\nA,1\n',
        'text/csv',
        /^El archivo no se aceptó \(línea 1\): la fila de encabezados no tiene una columna «descripcion» ni una columna «fraccion»/,
      ],
      ['\n\n', 'text/csv', /^El archivo no se aceptó: el archivo no tiene fila de encabezados\./],
      ['descripcion\n"caballos\n', 'text/csv', /^El archivo no se aceptó( \(línea \d+\))?: el archivo no se puede leer como CSV\./],
      ['', 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet', /^El archivo no se aceptó: el archivo no se puede leer como XLSX\./],
    ];
    for (const [file, type, said] of cases) {
      const error = await refused(server, 'POST', '/api/v1/lotes', file, type);
      assert.equal(error.status, 422, JSON.stringify(error.detail));
      const sentence = refusal(error);
      assert.match(sentence, said, `${JSON.stringify(file)} → ${JSON.stringify(error.detail)}`);
      assert.doesNotMatch(sentence, /no se puede leer\.( |$)|[A-Za-z]+ the /, sentence);
    }
    const notUtf8 = await fetch(`${server.base}/api/v1/lotes`, {
      method: 'POST',
      headers: { authorization: `Bearer ${server.token}`, 'content-type': 'text/csv' },
      body: Buffer.from([0x64, 0x65, 0x73, 0x63, 0x0a, 0xff, 0xfe, 0x0a]),
    });
    assert.equal(notUtf8.status, 422);
    assert.match(refusal(new ApiError(422, ((await notUtf8.json()) as { detail: unknown }).detail)), /no está en UTF-8/);
    const badQuery = await refused(server, 'POST', '/api/v1/lotes?pais_origen=ESTADOS', 'descripcion\ncaballos\n', 'text/csv');
    assert.equal(refusal(badQuery), 'El país de origen es una clave de 3 letras (por ejemplo USA o CHN).');
  });

  test('a watch list the service refuses is said beside each field, a pasted line by its number', async (t) => {
    const server = await serve(t, { DATABASE_URL: (await database(t, 'sqlite')).url });
    const pasted = '0101\n\n  84.71-30  \n8471.30.01\nxyz\n';
    const lines = pastedLines(pasted);
    assert.deepEqual(lines, [
      { number: 1, text: '0101' },
      { number: 3, text: '84.71-30' },
      { number: 4, text: '8471.30.01' },
      { number: 5, text: 'xyz' },
    ]);
    const send = (body: object): Promise<ApiError> => refused(server, 'POST', '/api/v1/vigilancias', JSON.stringify(body), 'application/json');

    const badLines = refusals(
      await send({ nombre: 'Cliente A', fracciones: lines.map((l) => l.text), webhook: { url: 'https://erp.example.com/avisos' } }),
      lines,
    );
    const said = badLines.fields.get('fracciones') ?? [];
    assert.equal(said.length, 2, said.join(' | '));
    assert.ok(said[0]!.startsWith('Línea 3: «84.71-30» no es una fracción.'), said[0]);
    assert.ok(said[1]!.startsWith('Línea 5: «xyz» no es una fracción.'), said[1]);
    assert.deepEqual(badLines.general, []);

    const http = refusals(await send({ nombre: 'Cliente A', fracciones: ['0101'], webhook: { url: 'http://erp.example.com/avisos' } }), lines);
    assert.match(http.fields.get('url')?.[0] ?? '', /^La dirección debe empezar con https:\/\//);
    const inside = refusals(await send({ nombre: 'Cliente A', fracciones: ['0101'], webhook: { url: 'https://10.1.2.3/avisos' } }), lines);
    assert.match(inside.fields.get('url')?.[0] ?? '', /^10\.1\.2\.3 .*no es una dirección pública/);
    const noName = refusals(await send({ nombre: '', fracciones: ['0101'], webhook: { url: 'https://erp.example.com/avisos' } }), lines);
    assert.deepEqual(noName.fields.get('nombre'), ['Escriba un nombre para la vigilancia (hasta 200 caracteres).']);
  });

  test('what the page checks before sending: empty fields named as the service names them, codes as the service reads them', () => {
    const empty: Body = { nombre: '', fracciones: [], conjuntos: [], webhook: { url: '' } };
    assert.deepEqual(
      missing(empty).map((d) => d.loc?.join('.')),
      ['body.nombre', 'body.fracciones', 'body.conjuntos', 'body.webhook.url'],
    );
    assert.deepEqual(missing({ nombre: 'A', fracciones: ['01'], conjuntos: ['tlcs'], webhook: { url: 'https://erp.example.com/' } }), []);
    assert.equal(codeDigits(' 8471.30.01 '), '84713001');
    assert.equal(codeDigits('0101.21.01.00'), '0101210100');
    assert.equal(codeDigits('1'), null);
    assert.equal(codeDigits('847130011'), null);
    assert.equal(fractionDigits('0101.21.01'), '01012101');
    assert.equal(dotted('0101210100'), '0101.21.01.00');
    assert.equal(date8('20240603'), '03/06/2024');
    assert.equal(plain('<il>33.02 cm (13 inches)</il>'), '33.02 cm (13 inches)');
  });
});
