/**
 * The page's views as functions, without a browser (issue 23): the page's own modules, imported as the
 * browser imports them, run in one happy-dom window over one started service (the demo data), whose
 * real answers they show. Its refusals are turned into the Spanish a person reads, so a message the
 * service changes, and the page no longer recognises, fails here rather than falling through to a
 * general sentence on the page. Each view of /consulta/ (search, fraction with its sections and
 * contributions, explore, login, batches, watch lists) is called as main.ts calls it; the assertions
 * are what a person reads: the Spanish text, the structure (headings, tables, alerts) and the links,
 * for full answers, empty answers and refusals. Chromium's tests keep what only a browser shows
 * (layout, focus, axe-core, downloads, suggestions while typing).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Window } from 'happy-dom';
import { ApiError, TOKEN_KEY, sessionRecord } from '../src/consulta/api.js';
import { showSearch } from '../src/consulta/buscar.js';
import { date8, dotted, fractionDigits, plain } from '../src/consulta/dom.js';
import { showLogin } from '../src/consulta/entrar.js';
import { showExplore } from '../src/consulta/explorar.js';
import { showFraction } from '../src/consulta/fraccion.js';
import { refusal, showLote, showLotes } from '../src/consulta/lotes.js';
import type { Column } from '../src/consulta/sections.js';
import { SUBJECTS } from '../src/consulta/sections.js';
import type { Body } from '../src/consulta/vigilancias.js';
import { codeDigits, missing, pastedLines, refusals, showVigilancia, showVigilancias } from '../src/consulta/vigilancias.js';
import type { Running } from './servers.js';
import { waitFor } from './lifetime.js';
import { fillDemo } from './databases.js';
import { serveFixture } from './servers.js';
import { TEST_PASSWORD, TEST_USER } from './clients.js';

/** The page's address: what the views read (`pathname`, `search`) and where they send the person (`assign`). */
class Address {
  url = new URL('http://consulta.test/consulta/');
  readonly assigned: string[] = [];
  get href(): string {
    return this.url.href;
  }
  get origin(): string {
    return this.url.origin;
  }
  get pathname(): string {
    return this.url.pathname;
  }
  get search(): string {
    return this.url.search;
  }
  assign(to: string): void {
    this.assigned.push(to);
  }
}

const window = new Window({ url: 'http://consulta.test/consulta/' });
const address = new Address();
const nodeFetch = globalThis.fetch;
let server: Running;

/** The globals the page's modules use, as a browser has them; the page's calls (relative paths) go to the started service. */
function installBrowserGlobals(): void {
  const globals: Record<string, unknown> = {
    window,
    document: window.document,
    sessionStorage: window.sessionStorage,
    location: address,
    fetch: (input: string | URL | Request, init?: RequestInit) =>
      nodeFetch(typeof input === 'string' && input.startsWith('/') ? server.base + input : input, init),
  };
  for (const [name, value] of Object.entries(globals)) Object.defineProperty(globalThis, name, { value, configurable: true, writable: true });
}

/** A fresh page at `path` (the shell's `<main id="contenido">`), then `view` run on it as main.ts runs it. */
async function opened(path: string, view: () => Promise<void> | void): Promise<HTMLElement> {
  address.url = new URL(path, address.origin);
  address.assigned.length = 0;
  const main = document.createElement('main');
  main.id = 'contenido';
  document.body.replaceChildren(main);
  await view();
  return main;
}

/** Text as read: spaces collapsed. */
const read = (node: Element | null | undefined): string => (node?.textContent ?? '').replace(/\s+/g, ' ').trim();
const all = (root: ParentNode, selector: string): Element[] => [...root.querySelectorAll(selector)];
const texts = (root: ParentNode, selector: string): string[] => all(root, selector).map(read);
const hrefs = (root: ParentNode, selector = 'a'): string[] => all(root, selector).map((a) => a.getAttribute('href') ?? '');
/** The section of the page whose h2 is `title`. */
const sectionOf = (main: HTMLElement, title: string): Element => {
  const heading = all(main, 'section > h2').find((h2) => read(h2) === title);
  assert.ok(heading?.parentElement, `a section titled ${title}: ${texts(main, 'h2').join(' | ')}`);
  return heading.parentElement;
};
const submit = (form: Element | null): void => {
  assert.ok(form !== null, 'a form');
  (form as HTMLFormElement).requestSubmit();
};
const fill = (root: ParentNode, selector: string, value: string): void => {
  const input = root.querySelector<HTMLInputElement>(selector);
  assert.ok(input !== null, selector);
  input.value = value;
};

/** The service's answer to a request as the test user, as the page's ApiError carries it. */
async function refused(server: Running, method: string, path: string, body: string, type: string): Promise<ApiError> {
  const response = await server.authed.fetch(path, { method, headers: { 'content-type': type }, body });
  assert.ok(response.status >= 400, `${path} answered ${response.status}`);
  return new ApiError(response.status, ((await response.json()) as { detail: unknown }).detail);
}

describe("the page's views without a browser, over one started service", () => {
  serveFixture(
    'sqlite',
    { MAX_EVENT_LOOP_DELAY_MS: '0', VIGILANCIAS_HOSTS_PERMITIDOS: '127.0.0.1', VIGILANCIAS_REINTENTOS: '50ms' },
    (running) => (server = running),
    fillDemo,
  );
  before(() => {
    installBrowserGlobals();
    sessionStorage.setItem(TOKEN_KEY, sessionRecord(server.token, Date.now() + 3_600_000));
  });
  after(() => window.happyDOM.close());

  describe('what the service refuses, said in Spanish', () => {
    test('a batch file the service refuses is said with its line, never as the general sentence', async () => {
      const cases: [string, string, RegExp][] = [
        [
          'referencia,valor\nA,1\n',
          'text/csv',
          /^El archivo no se aceptó \(línea 1\): la fila de encabezados no tiene una columna «descripcion» ni una columna «fraccion»/,
        ],
        ['\n\n', 'text/csv', /^El archivo no se aceptó: el archivo no tiene fila de encabezados\./],
        ['descripcion\n"caballos\n', 'text/csv', /^El archivo no se aceptó( \(línea \d+\))?: el archivo no se puede leer como CSV\b/],
        ['', 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet', /^El archivo no se aceptó: el archivo no se puede leer como XLSX\b/],
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

    test('a watch list the service refuses is said beside each field, a pasted line by its number', async () => {
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

  describe('each view as a person reads it', () => {
    test('a record\'s cells: markup becomes its text; a NOM or permit past its VIGENCIA on the date shown is "vencido", one in force is not; operations named', async () => {
      await opened('/consulta/entrar?fecha=2024-06-30', () => undefined);
      const columns = (conjunto: string): readonly Column[] => SUBJECTS.flatMap((s) => s.parts).find((p) => p.conjunto === conjunto)!.columns;
      const cell = (conjunto: string, label: string, row: Record<string, unknown>): string => {
        const value = columns(conjunto)
          .find((c) => c.label === label)!
          .value(row);
        return typeof value === 'string' ? value : (value.textContent ?? '');
      };
      assert.equal(
        plain('With inside diameter of <il>33.02 cm (13 inches)</il> &amp; <i>Cyprinus carpio</i>'),
        'With inside diameter of 33.02 cm (13 inches) & Cyprinus carpio',
      );
      assert.equal(cell('noms', 'Vigencia', { VIGENCIA: '20240629' }), '29/06/2024 vencido');
      assert.equal(cell('noms', 'Vigencia', { VIGENCIA: '20240630' }), 'hasta 30/06/2024');
      assert.equal(cell('requisito-previo', 'Vigencia', { VIGENCIA: '20231231' }), '31/12/2023 vencido');
      assert.equal(cell('noms', 'Operación', { IMPORTACION: 'S', EXPORTACION: 'S' }), 'Importación y exportación');
      assert.equal(cell('regulaciones', 'Operación', { IMPORTACION: 'N', EXPORTACION: 'S' }), 'Exportación');
      assert.equal(
        cell('requisito-previo', 'Operación', { DESCRIPCION: 'Permiso previo de la SE (Únicamente cuando se importe en definitiva…)' }),
        'Importación',
      );
      assert.equal(cell('requisito-previo', 'Operación', { DESCRIPCION: 'Permiso previo de la SE' }), 'No indicada en los datos');
    });

    test('login: the form, a wrong password said and cleared, the page asked for shown once logged in, `volver` kept to the page', async () => {
      let shown = 0;
      const main = await opened('/consulta/fraccion/0101.21.01', () => showLogin(() => void shown++));
      assert.equal(read(main.querySelector('h1')), 'Entrar a la consulta');
      assert.equal(document.title, 'Entrar · Consulta de la tarifa');
      assert.deepEqual(texts(main, 'label'), ['Usuario', 'Contraseña']);
      assert.equal(main.querySelector('#contrasena')?.getAttribute('type'), 'password');
      fill(main, '#usuario', TEST_USER);
      fill(main, '#contrasena', 'not the password');
      submit(main.querySelector('form'));
      await waitFor('the refusal', () => main.querySelector('[role="alert"]') !== null);
      assert.equal(read(main.querySelector('[role="alert"]')), 'Usuario o contraseña incorrectos.');
      assert.equal(main.querySelector<HTMLInputElement>('#contrasena')?.value, '', 'the password is not left in the form');
      assert.equal(shown, 0);
      fill(main, '#contrasena', TEST_PASSWORD);
      submit(main.querySelector('form'));
      await waitFor('the page asked for', () => shown === 1);
      assert.deepEqual(address.assigned, [], 'the address stays as it is');

      for (const [volver, to] of [
        ['%2Fconsulta%2Flotes', '/consulta/lotes'],
        ['%2F%2Fotro.example%2Fconsulta%2F', '/consulta/'],
      ] as const) {
        const page = await opened(`/consulta/entrar?volver=${volver}`, () => showLogin(null));
        fill(page, '#usuario', TEST_USER);
        fill(page, '#contrasena', TEST_PASSWORD);
        submit(page.querySelector('form'));
        await waitFor(`back to ${to}`, () => address.assigned.length === 1);
        assert.deepEqual(address.assigned, [to], volver);
      }
    });

    test('search: the results of "café tostado" with code, NICO, marked words, path and link; pages; none; a code goes to its fraction', async () => {
      const q = 'café tostado';
      const api = await server.json<{ total: number; items: { FRACCION: string; NICO: string | null }[] }>(
        `/api/v1/buscar?q=${encodeURIComponent(q)}&limit=20`,
      );
      assert.ok(api.body.total > 0, 'the demo data has hits');
      const main = await opened(`/consulta/?q=${encodeURIComponent(q)}`, showSearch);
      assert.equal(document.title, `Buscar: ${q} · Consulta de la tarifa`);
      assert.equal(read(main.querySelector('h1')), 'Consulta de la tarifa');
      assert.equal(main.querySelector<HTMLInputElement>('#q')?.value, q, 'the box keeps the query');
      assert.equal(read(main.querySelector('label[for="q"]')), 'Buscar mercancía o fracción');
      const total = api.body.total;
      const summary = read(main.querySelector('section p[role="status"]'));
      assert.ok(summary.startsWith(`${total} resultado${total === 1 ? '' : 's'} para «${q}»`), summary);
      const results = all(main, 'ol.resultados > li.resultado');
      assert.equal(results.length, api.body.items.length);
      const first = results[0]!;
      const hit = api.body.items[0]!;
      const code = `${hit.FRACCION.slice(0, 4)}.${hit.FRACCION.slice(4, 6)}.${hit.FRACCION.slice(6, 8)}`;
      assert.equal(read(first.querySelector('.codigo')), code);
      assert.equal(read(first.querySelector('.nico')), hit.NICO === null ? '' : `NICO ${hit.NICO}`);
      assert.match(texts(first, 'mark').join(' ').toLowerCase(), /caf|tost/);
      assert.match(read(first.querySelector('.ruta')), /^\d{2} .+ › \d{4} .+ › \d{4}\.\d{2} /);
      assert.equal(first.querySelector('a')?.getAttribute('href'), `/consulta/fraccion/${code}${hit.NICO === null ? '' : `.${hit.NICO}`}`);
      assert.ok(hrefs(main).includes('/consulta/explorar/'), 'the link to explore the tariff');
      assert.ok(total > 20, 'more than a page of results');
      assert.match(summary, /; del 1 al 20\.$/);
      assert.deepEqual(texts(main, 'nav.paginas a'), ['Siguientes']);
      assert.equal(hrefs(main, 'nav.paginas a')[0], `/consulta/?q=${encodeURIComponent(q).replaceAll('%20', '+')}&pagina=2`);
      const second = await opened(`/consulta/?q=${encodeURIComponent(q)}&pagina=2`, showSearch);
      assert.match(read(second.querySelector('section p[role="status"]')), /; del 21 al 40\.$/);
      assert.equal(second.querySelector('ol.resultados')?.getAttribute('start'), '21');
      assert.deepEqual(texts(second, 'nav.paginas a'), total > 40 ? ['Anteriores', 'Siguientes'] : ['Anteriores']);

      const none = await opened('/consulta/?q=zzqxwv', showSearch);
      assert.equal(read(none.querySelector('section p[role="status"]')), 'Sin resultados para «zzqxwv». Pruebe con otras palabras o con parte del código.');
      assert.equal(all(none, 'li.resultado').length, 0);
      assert.equal(none.querySelectorAll('nav.paginas a').length, 0);

      const refused = await opened(`/consulta/?q=${'a'.repeat(201)}`, showSearch);
      assert.equal(read(refused.querySelector('[role="alert"]')), 'La consulta no es válida; revise lo escrito.');

      const empty = await opened('/consulta/', showSearch);
      assert.equal(document.title, 'Buscar · Consulta de la tarifa');
      assert.ok(empty.querySelector('section') === null, 'no results before a query');
      fill(empty, '#q', '0101 21 01');
      submit(empty.querySelector('form'));
      fill(empty, '#q', 'caballos de carrera');
      submit(empty.querySelector('form'));
      assert.deepEqual(address.assigned, ['/consulta/fraccion/0101.21.01', '/consulta/?q=caballos+de+carrera']);
    });

    test('fraction: code and description, where it sits, duties at a glance, every subject with its table or what the data does not hold, notes, countries', async () => {
      const main = await opened('/consulta/fraccion/0901.11.99', () => showFraction('0901.11.99'));
      const h1 = read(main.querySelector('h1'));
      assert.match(h1, /^0901\.11\.99 \S/);
      assert.equal(document.title, `${h1} · Consulta de la tarifa`);
      const path = main.querySelector('nav.ruta');
      assert.deepEqual(hrefs(path!), ['/consulta/explorar/seccion/II', '/consulta/explorar/capitulo/09', '/consulta/explorar/partida/0901']);
      assert.match(read(path), /^Sección II › Capítulo 09 .+ › Partida 0901 .+ › Subpartida 0901\.11 .+/);
      const glance = main.querySelector('dl.resumen');
      assert.deepEqual(texts(glance!, 'dt'), ['IGI (importación)', 'IGE (exportación)', 'Unidad (UMT)']);
      assert.deepEqual(texts(glance!, 'dd'), ['20 %', 'Ex.', 'KG']);
      assert.equal(main.querySelector('a.vigilar')?.getAttribute('href'), '/consulta/vigilancias?fraccion=0901.11.99');
      assert.equal(read(main.querySelector('a.vigilar')), 'Vigilar esta fracción');

      const headings = texts(main, 'section > h2');
      for (const subject of SUBJECTS) {
        assert.ok(headings.includes(subject.title), `heading ${subject.title}`);
        const section = main.querySelector(`section#${subject.id}`)!;
        const rows = section.querySelectorAll('tbody tr').length;
        const said = texts(section, 'p.vacio');
        assert.ok(rows > 0 || said.length > 0, `${subject.title} shows records or says the data holds none`);
        for (const sentence of said) assert.match(sentence, /^Los datos cargados no registran .+ para esta fracción\.$/);
        assert.doesNotMatch(read(section), /Sin registros/);
      }
      const duties = main.querySelector('section#aranceles table')!;
      assert.deepEqual(texts(duties, 'thead th').slice(0, 2), ['NICO', 'Descripción']);
      for (const cell of all(duties, 'tbody td')) assert.ok(cell.getAttribute('data-label'), 'each cell names its column on a phone');

      const tlc = all(main, '#preferencias tbody tr');
      assert.ok(tlc.length > 1, 'preferences for several countries');
      const country = main.querySelector<HTMLSelectElement>('#preferencias select#pais')!;
      assert.equal(read(main.querySelector('label[for="pais"]')), 'País');
      assert.equal(country.options[0]?.textContent, 'Todos los países');
      country.value = 'USA';
      country.dispatchEvent(new window.Event('change') as unknown as Event);
      const shown = tlc.filter((row) => !(row as HTMLElement).hidden);
      assert.ok(shown.length > 0 && shown.length < tlc.length, 'the selector keeps one country');
      for (const row of shown) assert.ok(['USA', ''].includes(row.getAttribute('data-pais') ?? ''), row.getAttribute('data-pais') ?? '');

      const notes = main.querySelector('section#notas')!;
      assert.equal(read(notes.querySelector('h2')), 'Notas legales');
      const labels = texts(notes, 'dt');
      assert.ok(labels.includes('Notas de la fracción') && labels.includes('Historia del código'), labels.join(', '));
      for (const label of labels) assert.match(label, /^(Notas del capítulo|Notas de la partida|Notas de la fracción|Historia del código)$/);
      assert.match(read(notes.querySelector('dt + dd')), /\S/);
      assert.equal(read(main.querySelector('#contribuciones h2')), 'Calcular contribuciones');
    });

    test('fraction: its NICO listed as links, a NICO it lacks, a code that does not exist, one that is not a code, one replaced', async () => {
      const fraction = await opened('/consulta/fraccion/8471.30.01', () => showFraction('8471.30.01'));
      const nicos = fraction.querySelector('section.nicos')!;
      assert.equal(read(nicos.querySelector('h2')), 'NICO de esta fracción');
      assert.deepEqual(hrefs(nicos), ['/consulta/fraccion/8471.30.01.01', '/consulta/fraccion/8471.30.01.99']);
      assert.deepEqual(texts(nicos, 'li'), ['01Tableta electrónica ("Tablets")', '99Las demás']);
      const nico01 = await opened('/consulta/fraccion/8471.30.01.01', () => showFraction('8471.30.01.01'));
      assert.equal(read(nico01.querySelector('h1')), '8471.30.01NICO 01 Tableta electrónica ("Tablets")');
      assert.ok(nico01.querySelector('section.nicos') === null, 'the page of one NICO lists none');
      const nico = await opened('/consulta/fraccion/0101.21.01.99', () => showFraction('0101.21.01.99'));
      assert.equal(read(nico.querySelector('[role="alert"]')), 'La fracción 0101.21.01 no tiene el NICO 99 en la tarifa consultada.');
      assert.deepEqual(hrefs(nico), ['/consulta/fraccion/0101.21.01']);
      assert.equal(read(nico.querySelector('a')), 'Ver la fracción 0101.21.01 y sus NICO');

      const unknown = await opened('/consulta/fraccion/9999.99.99', () => showFraction('9999.99.99'));
      assert.equal(read(unknown.querySelector('h1')), '9999.99.99');
      assert.equal(read(unknown.querySelector('[role="alert"]')), 'La fracción 9999.99.99 no existe en la tarifa consultada.');
      assert.deepEqual(hrefs(unknown), ['/consulta/']);

      const typed = await opened('/consulta/fraccion/cafe', () => showFraction('cafe'));
      assert.equal(read(typed.querySelector('h1')), 'Código no válido');
      assert.equal(read(typed.querySelector('[role="alert"]')), '«cafe» no es una fracción: escriba 8 dígitos, o 10 con el NICO (por ejemplo 0901.21.01).');

      const { old, current } = await replacedFraction();
      const dots = (code: string): string => `${code.slice(0, 4)}.${code.slice(4, 6)}.${code.slice(6, 8)}${code.length > 8 ? `.${code.slice(8)}` : ''}`;
      const replaced = await opened(`/consulta/fraccion/${dots(old)}`, () => showFraction(dots(old)));
      assert.equal(read(replaced.querySelector('h1')), `${dots(old)} Fracción suprimida`);
      assert.equal(read(replaced.querySelector('h1 + p')), `La fracción ${dots(old)} ya no existe en la tarifa consultada. La reemplaza:`);
      assert.ok(
        hrefs(replaced, 'ul.reemplazos a').some((href) => href.startsWith(`/consulta/fraccion/${dots(current)}`)),
        hrefs(replaced, 'ul.reemplazos a').join(' '),
      );
      const successor = await opened(`/consulta/fraccion/${dots(current)}`, () => showFraction(dots(current)));
      assert.ok(
        texts(successor, '#anteriores a').some((text) => text.startsWith(dots(old))),
        'the fraction that replaced it links back',
      );
    });

    test('contributions: the form, the answer as one table per option with the best said, requirements; a refused value said by its field', async () => {
      const main = await opened('/consulta/fraccion/0101.21.01', () => showFraction('0101.21.01'));
      const section = main.querySelector('section#contribuciones')!;
      assert.deepEqual(texts(section, 'form label').slice(-6), [
        'Valor en aduana',
        'País de origen',
        'Cantidad (UMT)',
        'Certificado de origen',
        'Sector PROSEC',
        'Tipo de cambio',
      ]);
      assert.equal(section.querySelectorAll('#c-sector option').length, 25, 'no sector, then sectors I to XXIV');
      fill(section, '#c-valor', '100,000.00');
      fill(section, '#c-pais', 'usa');
      section.querySelector<HTMLInputElement>('#c-certificado')!.checked = true;
      submit(section.querySelector('form'));
      assert.equal(read(section.querySelector('.resultado-calculo')), 'Calculando…');
      await waitFor('the calculation', () => section.querySelector('.calculo, .aviso') !== null);
      const result = section.querySelector('.calculo')!;
      assert.ok(result !== null, read(section.querySelector('.aviso')));
      assert.deepEqual(texts(result, 'h3'), ['Resultado', 'Requisitos']);
      const best = read(result.querySelector('h3 + p'));
      assert.match(best, /^Mejor opción: (Tasa general|Tratado de libre comercio|ALADI|PROSEC|Cupo)\.$/);
      const options = all(result, '.opcion');
      assert.ok(options.length >= 1);
      assert.equal(all(result, '.opcion.mejor').length, 1, 'one option is the best');
      assert.match(read(result.querySelector('.opcion.mejor h4')), / · Mejor opción$/);
      for (const option of options) {
        assert.deepEqual(texts(option, 'thead th'), ['Contribución', 'Base', 'Tasa o cuota', 'Tipo', 'Importe', 'Fundamento']);
        const claves = texts(option, 'tbody th[scope="row"]');
        for (const clave of ['IGI', 'DTA', 'IVA', 'Total']) assert.ok(claves.includes(clave), `${clave} in ${claves.join(', ')}`);
        assert.match(read(option.querySelector('tr.total td.importe')), /^\d+(\.\d+)?$/, 'the total as the service computes it');
      }
      const requirements = all(result, 'h3')[1]!.nextElementSibling!;
      assert.ok(
        requirements.tagName === 'UL'
          ? texts(requirements, 'li').every((t) => /^(Permiso previo|Regulación|NOM|Cupo|[\w-]+): \S/.test(t))
          : read(requirements) === 'Los datos cargados no registran permisos, regulaciones, NOM ni cupos que presentar para esta importación.',
        read(requirements),
      );

      fill(section, '#c-valor', 'cien mil');
      submit(section.querySelector('form'));
      await waitFor('the refusal', () => section.querySelector('.resultado-calculo [role="alert"]') !== null);
      const refusal = section.querySelector('.resultado-calculo [role="alert"]')!;
      assert.equal(read(refusal.querySelector('p')), 'No se pudo calcular:');
      assert.deepEqual(texts(refusal, 'li'), ['Valor en aduana: un importe en pesos, con hasta 2 decimales (por ejemplo 100000.00).']);
    });

    test('explore: sections, a section, a chapter, a heading with its fractions, and levels the tariff lacks', async () => {
      const api = await server.json<{ secciones: { seccion: string | null; capitulos: unknown[] }[] }>('/api/v1/nomenclatura');
      const sections = await opened('/consulta/explorar/', () => showExplore(null, null));
      assert.equal(read(sections.querySelector('h1')), 'Explorar la tarifa');
      const items = all(sections, 'ul.niveles > li');
      assert.equal(items.length, api.body.secciones.length);
      const second = items.find((li) => read(li.querySelector('.codigo')) === 'Sección II')!;
      assert.equal(second.querySelector('a')?.getAttribute('href'), '/consulta/explorar/seccion/II');
      const chapters = api.body.secciones.find((s) => s.seccion === 'II')!.capitulos.length;
      assert.equal(read(second.querySelector('.cuenta')), `(${chapters} capítulos)`);

      const section = await opened('/consulta/explorar/seccion/II', () => showExplore('seccion', 'II'));
      assert.match(read(section.querySelector('h1')), /^Sección II \S/);
      assert.deepEqual(hrefs(section, 'nav.ruta a'), ['/consulta/explorar/']);
      assert.equal(section.querySelectorAll('ul.niveles > li').length, chapters);
      assert.ok(hrefs(section, 'ul.niveles a').includes('/consulta/explorar/capitulo/09'));
      assert.match(texts(section, 'ul.niveles .cuenta')[0]!, /^\(\d+ fracciones\)$/);

      const chapter = await opened('/consulta/explorar/capitulo/09', () => showExplore('capitulo', '09'));
      assert.match(read(chapter.querySelector('h1')), /^Capítulo 09 \S/);
      assert.equal(read(chapter.querySelector('nav.ruta')), 'Explorar la tarifa › Sección II');
      assert.ok(texts(chapter, 'ul.niveles .codigo').includes('Partida 0901'));

      const heading = await opened('/consulta/explorar/partida/0901?fecha=2024-06-30', () => showExplore('partida', '0901'));
      assert.match(read(heading.querySelector('h1')), /^Partida 0901 \S/);
      assert.deepEqual(hrefs(heading, 'nav.ruta a'), [
        '/consulta/explorar/?fecha=2024-06-30',
        '/consulta/explorar/seccion/II?fecha=2024-06-30',
        '/consulta/explorar/capitulo/09?fecha=2024-06-30',
      ]);
      const subheadings = all(heading, 'section.subpartida');
      assert.ok(subheadings.length > 0);
      assert.match(read(subheadings[0]!.querySelector('h2')), /^Subpartida 0901\.\d{2} \S/);
      const fractions = hrefs(heading, 'section.subpartida a');
      assert.ok(fractions.length > 0);
      for (const href of fractions) assert.match(href, /^\/consulta\/fraccion\/0901\.\d{2}\.\d{2}(\.\d{2})?\?fecha=2024-06-30$/);

      for (const [level, code, said] of [
        ['seccion', 'XCIX', 'La sección XCIX no está en la tarifa consultada.'],
        ['capitulo', '77', 'El capítulo 77 no está en la tarifa consultada.'],
        ['partida', '0999', 'La partida 0999 no está en la tarifa consultada.'],
      ] as const) {
        const page = await opened(`/consulta/explorar/${level}/${code}`, () => showExplore(level, code));
        assert.equal(read(page.querySelector('[role="alert"]')), said);
        assert.deepEqual(hrefs(page, 'nav.ruta a'), ['/consulta/explorar/']);
      }
    });

    test('batches: none yet, the form and what it checks before sending, a finished batch listed and shown with its lines to review, one that does not exist', async () => {
      const list = await opened('/consulta/lotes', showLotes);
      assert.equal(read(list.querySelector('h1')), 'Lotes');
      assert.equal(read(sectionOf(list, 'Sus lotes').querySelector('p.vacio')), 'Aún no ha enviado ningún lote.');
      const form = list.querySelector('form.enviar-lote')!;
      assert.deepEqual(texts(form, 'label'), ['Archivo CSV o XLSX', 'Nombre del lote (opcional)', 'Vigente al (opcional)', 'País de origen (opcional)']);
      submit(form);
      assert.equal(read(form.querySelector('[role="alert"]')), 'Elija el archivo que quiere revisar.');

      const csv = 'referencia,descripcion,fraccion\nA-1,caballos de carrera,0101.21.01\nA-2,tornillos,9999.99.99\nA-3,café tostado sin descafeinar,\n';
      const sent = await fetch(`${server.base}/api/v1/lotes?nombre=Cat%C3%A1logo%20de%20prueba`, {
        method: 'POST',
        headers: { authorization: `Bearer ${server.token}`, 'content-type': 'text/csv' },
        body: csv,
      });
      assert.equal(sent.status, 202, await sent.clone().text());
      const { id } = (await sent.json()) as { id: string };
      await waitFor('the batch to end', async () => (await server.json<{ estado: string }>(`/api/v1/lotes/${id}`)).body.estado === 'terminado');
      const review = (await server.json<{ total: number }>(`/api/v1/lotes/${id}/resultados?solo_revisar=true`)).body.total;
      assert.ok(review >= 1, 'the unknown fraction is to review');

      const listed = await opened('/consulta/lotes', showLotes);
      const table = sectionOf(listed, 'Sus lotes').querySelector('table')!;
      assert.deepEqual(texts(table, 'thead th'), ['Nombre', 'Estado', 'Líneas', 'Avance', 'Por revisar', 'Enviado', 'Terminado']);
      const row = table.querySelector(`tr[data-lote="${id}"]`)!;
      assert.equal(row.querySelector('th a')?.getAttribute('href'), `/consulta/lotes/${id}`);
      assert.deepEqual(texts(row, 'th, td').slice(0, 5), ['Catálogo de prueba', 'Terminado', '3', '100 % 100 %', String(review)]);

      const page = await opened(`/consulta/lotes/${id}`, () => showLote(id));
      assert.equal(read(page.querySelector('h1')), 'Lote Catálogo de prueba');
      assert.equal(read(page.querySelector('nav.ruta')), 'Lotes › Catálogo de prueba');
      const summary = Object.fromEntries(all(page, 'dl.resumen > div').map((d) => [read(d.querySelector('dt')), read(d.querySelector('dd'))]));
      assert.equal(summary['Estado'], 'Terminado');
      assert.equal(summary['Líneas'], '3');
      assert.equal(summary['Procesadas'], '3');
      assert.equal(summary['Por revisar'], String(review));
      assert.equal(read(page.querySelector('#avance-texto')), 'Terminado: 100 % · 3 de 3 líneas');
      await waitFor('the lines to review', () => page.querySelector('section.revisar') !== null);
      assert.deepEqual(texts(page, 'p.botones button').slice(0, 1), ['Eliminar el lote']);
      const lines = page.querySelector('section.revisar')!;
      assert.equal(read(lines.querySelector('h2')), 'Líneas por revisar');
      assert.match(read(lines.querySelector('h2 + p')), new RegExp(`^${review} de 3 líneas necesitan revisión`));
      const unknown = all(lines, 'tbody tr').find((tr) => read(tr.querySelector('td')) === 'A-2');
      assert.ok(unknown !== undefined, texts(lines, 'tbody tr').join(' | '));
      assert.deepEqual(texts(unknown, 'td').slice(0, 4), ['A-2', 'tornillos', '9999.99.99', 'Inexistente']);
      assert.ok(unknown.querySelector('td.codigo a') === null, 'a fraction that does not exist is not a link');
      assert.ok(texts(unknown, '.motivos li').includes('La fracción no existe en la tarifa.'));
      const downloads = sectionOf(page, 'Descargar los resultados');
      assert.deepEqual(texts(downloads, 'button'), ['Descargar XLSX', 'Descargar CSV']);

      const missing = await opened('/consulta/lotes/0b6f4f6e-8d3a-4c59-9a57-3f1e2d6c7b10', () => showLote('0b6f4f6e-8d3a-4c59-9a57-3f1e2d6c7b10'));
      assert.equal(read(missing.querySelector('h1')), 'Lote no encontrado');
      assert.equal(read(missing.querySelector('[role="alert"]')), 'Este lote no existe, ya se eliminó o es de otro usuario.');
      const invalid = await opened('/consulta/lotes/no-es-un-id', () => showLote('no-es-un-id'));
      assert.equal(read(invalid.querySelector('h1')), 'Lote no encontrado');
    });

    test('watch lists: none yet, a fraction to watch in the form, empty fields said beside them, one made with its secret, its page with deliveries, one that does not exist', async () => {
      const page = await opened('/consulta/vigilancias?fraccion=0101.21.01', showVigilancias);
      assert.equal(read(page.querySelector('h1')), 'Vigilancias');
      assert.equal(
        read(sectionOf(page, 'Sus vigilancias').querySelector('p.vacio')),
        'Todavía no tiene vigilancias. Cree la primera con el formulario «Nueva vigilancia».',
      );
      assert.equal(
        read(sectionOf(page, 'Vigilar la fracción 0101.21.01').querySelector('p')),
        'La fracción 0101.21.01 ya está en el formulario «Nueva vigilancia»: póngale un nombre y la dirección de su webhook para crearla.',
      );
      assert.ok(page.querySelector('form.anadir') === null, 'nothing to add it to yet');
      const form = page.querySelector<HTMLFormElement>('form.vigilancia')!;
      assert.equal(page.querySelector<HTMLTextAreaElement>('#v-fracciones')?.value, '0101.21.01');
      assert.equal(form.querySelectorAll('input[name="conjuntos"]:checked').length, 19, 'every record set watched by default');
      submit(form);
      assert.equal(read(page.querySelector('#v-nombre-error')), 'Escriba un nombre para la vigilancia (hasta 200 caracteres).');
      assert.equal(read(page.querySelector('#v-url-error')), 'Escriba la dirección https donde su sistema recibe los avisos.');
      assert.equal(read(page.querySelector('#v-fracciones-error')), '');
      assert.equal(page.querySelector('#v-nombre')?.getAttribute('aria-invalid'), 'true');
      assert.equal(read(form.querySelector('[role="alert"]')), 'No se guardó: revise los campos señalados.');

      fill(page, '#v-nombre', 'Cliente A');
      fill(page, '#v-fracciones', '0101.21.01\n\n84.71-30\n');
      fill(page, '#v-url', 'http://127.0.0.1:9/avisos');
      submit(form);
      await waitFor('the refusal', () => read(page.querySelector('#v-fracciones-error')) !== '');
      assert.match(read(page.querySelector('#v-fracciones-error')), /^Línea 3: «84\.71-30» no es una fracción\./);
      fill(page, '#v-fracciones', '0101.21.01\n8471.30.01');
      submit(form);
      // The secret is shown first, then the list is asked for again.
      await waitFor(
        'the watch list made and listed',
        () => page.querySelector('.creada .secreto') !== null && page.querySelector('#lista-vigilancias table') !== null,
      );
      const made = page.querySelector('.creada .secreto')!;
      assert.equal(read(made.querySelector('strong')), 'Vigilancia «Cliente A» creada.');
      assert.match(read(made.querySelector('#secreto')), /^whsec_\S+$/);
      const table = sectionOf(page, 'Sus vigilancias').querySelector('table')!;
      assert.deepEqual(texts(table, 'thead th'), ['Nombre', 'Webhook', 'Fracciones', 'Conjuntos de datos', 'Estado']);
      assert.deepEqual(texts(table, 'tbody tr > *'), ['Cliente A', 'http://127.0.0.1:9/avisos', '2', 'Todos (19)', 'Activa']);
      const link = table.querySelector('tbody a')!.getAttribute('href')!;
      const id = decodeURIComponent(link.replace('/consulta/vigilancias/', ''));
      assert.equal(made.querySelector('a')?.getAttribute('href'), link);

      const one = await opened(link, () => showVigilancia(id));
      assert.equal(read(one.querySelector('h1')), 'Vigilancia «Cliente A»');
      assert.deepEqual(hrefs(one, 'p.volver a'), ['/consulta/vigilancias']);
      const summary = Object.fromEntries(all(one, 'dl.ficha-vigilancia > div').map((d) => [read(d.querySelector('dt')), read(d.querySelector('dd'))]));
      assert.equal(summary['Estado'], 'Activa');
      assert.equal(summary['Fracciones'], '2: 0101.21.01, 8471.30.01');
      assert.equal(summary['Conjuntos de datos'], 'Todos (19)');
      assert.equal(
        read(one.querySelector('#entregas p.vacio')),
        'Esta vigilancia todavía no ha enviado ningún aviso. Pruebe su webhook con «Enviar aviso de prueba».',
      );
      assert.deepEqual(texts(sectionOf(one, 'Últimas entregas'), 'button'), ['Enviar aviso de prueba', 'Actualizar']);
      assert.equal(one.querySelector<HTMLTextAreaElement>('#v-fracciones')?.value, '0101.21.01\n8471.30.01', 'the edit form holds the list');

      const tried = await fetch(`${server.base}/api/v1/vigilancias/${encodeURIComponent(id)}/prueba`, {
        method: 'POST',
        headers: { authorization: `Bearer ${server.token}` },
      });
      assert.ok(tried.ok, String(tried.status));
      await waitFor('the test event to fail', async () => {
        const { body } = await server.json<{ items: { estado: string }[] }>(`/api/v1/vigilancias/${encodeURIComponent(id)}/entregas`);
        return body.items[0]?.estado === 'fallida';
      });
      const delivered = await opened(link, () => showVigilancia(id));
      const deliveries = delivered.querySelector('#entregas table')!;
      const row = deliveries.querySelector('tbody tr')!;
      assert.equal(row.getAttribute('data-estado'), 'fallida');
      assert.match(read(row.querySelector('th')), /^Aviso de prueba\S/);
      const cells = Object.fromEntries(all(row, 'td').map((td) => [td.getAttribute('data-label') ?? '', read(td)]));
      assert.equal(cells['Estado'], 'Fallida');
      assert.equal(cells['Acción'], 'Enviar de nuevo');
      assert.match(cells['Momento'] ?? '', /^\d{2}\/\d{2}\/\d{2,4}, \d{1,2}:\d{2}:\d{2}/);

      const again = await opened('/consulta/vigilancias?fraccion=0101.21.02', showVigilancias);
      const add = again.querySelector('form.anadir')!;
      assert.equal(read(add.querySelector('label')), 'O añada 0101.21.02 a una vigilancia que ya tiene');
      assert.deepEqual(texts(add, 'option'), ['Cliente A']);

      const missing = await opened('/consulta/vigilancias/vig_0123456789abcdef', () => showVigilancia('vig_0123456789abcdef'));
      assert.equal(read(missing.querySelector('h1')), 'Vigilancia no encontrada');
      assert.equal(read(missing.querySelector('[role="alert"]')), 'Esta vigilancia no existe o no es suya.');
      assert.deepEqual(hrefs(missing), ['/consulta/vigilancias']);
    });
  });
});

/** A fraction the data no longer has and one that replaced it, found through the API. */
async function replacedFraction(): Promise<{ old: string; current: string }> {
  for (let skip = 0; ; skip += 1000) {
    const { body } = await server.json<{ FRACCIONANTERIOR: string; FRACCIONACTUAL: string }[]>(`/api/v1/fracciones-anteriores/?skip=${skip}&limit=1000`);
    assert.ok(body.length > 0, 'the demo data has a replaced fraction');
    for (const row of body) {
      if (row.FRACCIONANTERIOR === row.FRACCIONACTUAL) continue;
      const { body: found } = await server.json<{ total: number }>(`/api/v1/fracciones/?fraccion=${row.FRACCIONANTERIOR}&limit=1`);
      if (found.total === 0) return { old: row.FRACCIONANTERIOR, current: row.FRACCIONACTUAL };
    }
  }
}
