/**
 * The result of a batch's lines (../shared/spec/lotes.md, "Reading the results"): every field is asked
 * of the functions the single calls answer with, on the batch's version. `buscar` (src/store/fulltext.ts),
 * the `fracciones` and `fracciones-anteriores` searches (the registry's filter conditions and the store's
 * search, as the record-set routes build them), and `POST /api/v1/contribuciones` (readRecords, then
 * computeContribuciones for the line alone). A slice's records are read at once per origin country;
 * a fraction's records do not depend on what else is read with them.
 */
import type { Static } from '@sinclair/typebox';
import type { SinTipoCambio, TipoCambioAplicable } from '../tipos-cambio/rule.js';
import { tipoCambioOn } from '../tipos-cambio/lookup.js';
import type { Answer } from '../contribuciones/compute.js';
import { computeContribuciones } from '../contribuciones/compute.js';
import { Dec } from '../contribuciones/money.js';
import type { ContribucionesRequest, Partida } from '../contribuciones/request.js';
import type { FractionRecords, Source } from '../contribuciones/sources.js';
import { contribucionesSources, countryKeys, readRecords, rolesOf, text } from '../contribuciones/sources.js';
import type { Tables } from '../contribuciones/tables.js';
import type { RecordSet } from '../record-sets/define.js';
import { searchConditions } from '../record-sets/filters.js';
import { queryCode } from '../store/fulltext.js';
import { MAX_QUERY_LENGTH } from '../limites.js';
import type { Condition } from '../store/sql.js';
import type { Row, Store } from '../store/store.js';
import type { RawLine, ReadLine } from './columns.js';
import { readLine } from './columns.js';
import type { Hit } from './memo.js';
import { SearchMemo } from './memo.js';
import { Lru } from '../lru.js';
import type { ResultadoSchema } from './result-schema.js';
import type { SliceResult } from './tables.js';
import { Turns } from '../turns.js';

export const ESTADOS_FRACCION = ['vigente', 'nico_requerido', 'nico_inexistente', 'reemplazada', 'inexistente', 'sin_fraccion'] as const;
export type EstadoFraccion = (typeof ESTADOS_FRACCION)[number];

export interface FraccionBreve {
  readonly fraccion: string;
  readonly nico: string | null;
  readonly descripcion: string | null;
}

/** A line's result: the fields of the result columns' table (src/lotes/result-columns.ts), typed as its schema says. */
export type Resultado = Readonly<Static<typeof ResultadoSchema>>;

/** Which requirement count each record set's requirements go to, as contribuciones lists them. */
const REQUIREMENT_COUNT: Readonly<Record<string, keyof NonNullable<Resultado['requisitos']>>> = {
  'requisito-previo': 'permisos',
  regulaciones: 'regulaciones',
  noms: 'noms',
  cupos: 'cupos',
};

/** `candidatas` are the first 3 hits; `coincide` looks at the first 5. */
const CANDIDATES = 3;
const MATCHED_AMONG = 5;
/**
 * Fractions' records kept per store and origin, the most recently used (the searches: memo.ts). A
 * slice's records are read in one query per source, so a fraction read again costs little.
 */
const RECORDS_KEPT = 500;
/** Longest run of a batch's work before lookups waiting on the event loop are let through. */
const YIELD_AFTER_MS = 3;

/** The batch's parameters: its date (the version in force then answers) and the origin of lines that give none. */
export interface LoteParameters {
  readonly fecha: string;
  readonly paisOrigen: string | null;
}

/**
 * A line's result as its slice writes it: made where the line is answered (in the batches' thread),
 * so that the service's main thread moves one string a line instead of building each result's objects
 * again from the thread's message and serialising them, objects that lived through the slice's
 * transaction and, on PostgreSQL, its waits on the server.
 */
export const sliceResult = (r: Resultado): SliceResult => ({ linea: r.linea, revisar: r.revisar, error: r.error !== null, datos: JSON.stringify(r) });

/** What answering lines needs besides the store, made once per worker. */
export class LineChecker {
  private readonly sources: Source[];
  private readonly tariff: Source;
  private readonly fracciones: RecordSet;
  private readonly anteriores: RecordSet;
  /** Record sets of the agreements a country can have with Mexico (TLC, ALADI): whether it has one is read from them. */
  private readonly agreements: { rs: RecordSet; field: string }[];
  /** Per store (a version's data never changes once loaded): answers already asked, for the lines that ask them again. */
  private readonly memo = new WeakMap<Store, { searches: SearchMemo; records: Lru<FractionRecords> }>();
  /** Per store, per country: whether the data holds an agreement of Mexico with it. */
  private readonly agreementsOf = new WeakMap<Store, Map<string, Promise<boolean>>>();
  private readonly ratesOf = new WeakMap<Store, Map<string, Promise<TipoCambioAplicable | SinTipoCambio>>>();

  /**
   * @param searchesAtOnce The slice's distinct searches asked at once: 1 on SQLite (its reads are
   *   synchronous), more on PostgreSQL, where one search's page is read while the next is ranked.
   */
  constructor(
    recordSets: readonly RecordSet[],
    private readonly tables: Tables,
    private readonly searchesAtOnce = 1,
  ) {
    this.sources = contribucionesSources(recordSets);
    const tariff = this.sources.find((s) => rolesOf(s, 'tariff').length > 0);
    const anteriores = recordSets.find((rs) => rs.path === 'fracciones-anteriores');
    if (!tariff || !anteriores) throw new Error('the registry lacks fracciones or fracciones-anteriores');
    this.tariff = tariff;
    this.fracciones = tariff.rs;
    this.anteriores = anteriores;
    this.agreements = this.sources.flatMap((s) =>
      s.rs.country && rolesOf(s, 'preference').some((r) => r.treatment === 'tlc' || r.treatment === 'aladi') ? [{ rs: s.rs, field: s.rs.country }] : [],
    );
  }

  /** The results of `raw` lines, in their order, on `store` (the batch's version). */
  async check(store: Store, parameters: LoteParameters, raw: readonly RawLine[]): Promise<Resultado[]> {
    const lines = raw.map((r) => readLine(r, parameters.paisOrigen));
    const records = await this.records(store, lines);
    if (this.searchesAtOnce > 1) await this.searchAhead(store, lines);
    const out: Resultado[] = [];
    // The store answers synchronously on SQLite: requests waiting on the event loop go first every few milliseconds.
    const turns = new Turns(YIELD_AFTER_MS);
    for (const line of lines) {
      out.push(await this.checkLine(store, parameters, line, records.get(line.paisOrigen ?? '')!));
      await turns.turn();
    }
    return out;
  }

  private memoOf(store: Store): { searches: SearchMemo; records: Lru<FractionRecords> } {
    let memo = this.memo.get(store);
    if (!memo) this.memo.set(store, (memo = { searches: new SearchMemo(), records: new Lru(RECORDS_KEPT) }));
    return memo;
  }

  /** The records of every source for the slice's fractions, per origin country (those read for earlier lines kept). */
  private async records(store: Store, lines: readonly ReadLine[]): Promise<Map<string, Map<string, FractionRecords>>> {
    const byCountry = new Map<string, Set<string>>();
    for (const line of lines) {
      const country = line.paisOrigen ?? '';
      const set = byCountry.get(country) ?? new Set<string>();
      if (line.fraccion !== null) set.add(line.fraccion);
      byCountry.set(country, set);
    }
    const known = this.memoOf(store).records;
    const out = new Map<string, Map<string, FractionRecords>>();
    for (const [country, fractions] of byCountry) {
      const found = new Map<string, FractionRecords>();
      const missing = [...fractions].filter((f) => {
        const records = known.get(`${country}:${f}`);
        if (records !== undefined) found.set(f, records);
        return records === undefined;
      });
      const keys = country === '' ? [] : countryKeys(country, this.tables.groups);
      if (missing.length > 0) {
        for (const [f, records] of await readRecords(store, this.sources, missing, keys)) {
          known.set(`${country}:${f}`, records);
          found.set(f, records);
        }
      }
      out.set(country, found);
    }
    return out;
  }

  /** The slice's distinct descriptions searched `searchesAtOnce` at a time; the lines then find them in the memo. */
  private async searchAhead(store: Store, lines: readonly ReadLine[]): Promise<void> {
    const queue = [...new Set(lines.flatMap((l) => (l.descripcion === null ? [] : [l.descripcion.trim()])))];
    const next = async (): Promise<void> => {
      for (let d = queue.shift(); d !== undefined; d = queue.shift()) {
        // A failed search is forgotten by the memo and asked again, and its error met, by its line.
        await this.search(store, d).catch(() => undefined);
      }
    };
    await Promise.all(Array.from({ length: this.searchesAtOnce }, next));
  }

  /**
   * `buscar`'s first hits for a description (the store's search that `GET /api/v1/buscar` marks up; a
   * batch uses no marks): a catalogue repeats its descriptions, each is asked once (memo.ts).
   */
  private search(store: Store, descripcion: string): Promise<Hit[]> {
    const query = searchOf(descripcion);
    return this.memoOf(store).searches.hits(
      query.text,
      () => store.searchReading(query),
      async () => (await store.fullText(query)).hits,
    );
  }

  private async checkLine(store: Store, parameters: LoteParameters, line: ReadLine, records: ReadonlyMap<string, FractionRecords>): Promise<Resultado> {
    const errores = [...line.errores];
    const hits = line.descripcion === null ? [] : await this.search(store, line.descripcion.trim());
    const candidatas = hits.slice(0, CANDIDATES).map((h) => ({ fraccion: h.FRACCION, nico: h.NICO, descripcion: h.DESCRIPCION, relevancia: h.RELEVANCIA }));
    const coincide =
      line.fraccion === null || line.descripcion === null ? null : hits.slice(0, MATCHED_AMONG).some((h) => h.FRACCION.slice(0, 8) === line.fraccion);
    const found = this.state(line, records.get(line.fraccion ?? '')?.get(this.tariff) ?? []);
    const reemplazada_por = found.estado === 'inexistente' ? await this.replacements(store, line) : [];
    const estado: EstadoFraccion = found.estado === 'inexistente' && reemplazada_por.length > 0 ? 'reemplazada' : found.estado;
    let igi: Resultado['igi'] = null;
    let preferencia: Resultado['preferencia'] = null;
    let sinDatos = false;
    let requisitos: Resultado['requisitos'] = null;
    let contribuciones: Resultado['contribuciones'] = null;
    if (estado === 'vigente' && found.row !== undefined && line.fraccion !== null) {
      igi = this.igi(found.row);
      const lineRecords = new Map([[line.fraccion, records.get(line.fraccion)!]]);
      const probe = this.probe(parameters, line, found.nico ?? undefined, lineRecords);
      if (probe !== undefined) {
        preferencia = bestPreference(probe);
        requisitos = countRequirements(probe);
      }
      // The contributions' own absence note (an agreement country, no preference record) when the line could be computed.
      if (preferencia === null && line.paisOrigen !== null) {
        sinDatos = probe !== undefined ? (probe.partidas[0]?.ausencias.length ?? 0) > 0 : await this.hasAgreement(store, line.paisOrigen);
      }
      if (line.valorAduana !== null) {
        const rate = await this.rateOf(store, parameters.fecha);
        const computed = this.contribuciones(parameters, line, found.nico ?? undefined, lineRecords, rate);
        if (typeof computed === 'string') errores.push(computed);
        else contribuciones = computed;
      }
    }
    const error = errores.length === 0 ? null : errores.join('; ');
    return {
      linea: line.linea,
      referencia: line.referencia,
      descripcion: line.descripcion,
      extra: line.extra,
      fraccion: line.fraccion,
      nico: found.nico,
      estado_fraccion: estado,
      reemplazada_por: estado === 'reemplazada' ? reemplazada_por : [],
      candidatas,
      coincide,
      igi,
      preferencia,
      sin_datos_preferencia: sinDatos,
      requisitos,
      contribuciones,
      revisar: estado !== 'vigente' || coincide === false || error !== null,
      error,
    };
  }

  /** The fraction's state as POST /api/v1/contribuciones resolves a line's fraction and NICO. */
  private state(line: ReadLine, rows: readonly Row[]): { estado: EstadoFraccion; nico: string | null; row?: Row } {
    if (line.fraccion === null) return { estado: line.fraccionDada ? 'inexistente' : 'sin_fraccion', nico: line.nico };
    if (rows.length === 0) return { estado: 'inexistente', nico: line.nico };
    const nicoOf = (r: Row): string | null => text(r, this.tariff.nicoField);
    const nicos = [...new Set(rows.map(nicoOf).filter((n): n is string => n !== null))].sort();
    if (line.nico === null && nicos.length > 1) return { estado: 'nico_requerido', nico: null };
    // A version whose fraction carries no NICO (the TIGIE 2012, before the NICO existed) knows none: a line
    // without one is the fraction itself (nico null), and a NICO given is one that does not exist there, as
    // `GET /api/v1/fracciones?fraccion=…` with 10 digits finds nothing on that version.
    if (nicos.length === 0) {
      const row = rows.find((r) => nicoOf(r) === null);
      if (line.nico !== null || row === undefined) return { estado: 'nico_inexistente', nico: line.nico };
      return { estado: 'vigente', nico: null, row };
    }
    const nico = line.nico ?? nicos[0]!;
    const row = rows.find((r) => nicoOf(r) === nico);
    return row === undefined ? { estado: 'nico_inexistente', nico } : { estado: 'vigente', nico, row };
  }

  /** What replaced a fraction no longer in the tariff: the `fracciones-anteriores` search by the old fraction. */
  private async replacements(store: Store, line: ReadLine): Promise<FraccionBreve[]> {
    if (line.fraccion === null) return [];
    const rows = await store.search(this.anteriores, {
      conditions: searchConditions(this.anteriores, { fraccion_anterior: line.fraccion + (line.nico ?? '') }),
      skip: 0,
      limit: 1000,
    });
    const seen = new Set<string>();
    const out: FraccionBreve[] = [];
    for (const row of rows) {
      const fraccion = text(row, 'FRACCIONACTUAL')?.replace(/\D/g, '') ?? '';
      const nico = text(row, 'NICOACTUAL');
      const key = `${fraccion}.${nico ?? ''}`;
      if (fraccion === '' || seen.has(key)) continue;
      seen.add(key);
      const [current] = await store.search(this.fracciones, {
        conditions: searchConditions(this.fracciones, { fraccion: fraccion + (nico ?? '') }),
        skip: 0,
        limit: 1,
      });
      const role = rolesOf(this.tariff, 'tariff')[0]!;
      out.push({ fraccion, nico, descripcion: current === undefined ? null : text(current, role.description) });
    }
    return out;
  }

  private igi(row: Row): Resultado['igi'] {
    const role = rolesOf(this.tariff, 'tariff')[0]!;
    const tasa = row[role.rate] ?? null;
    const texto = text(row, role.rateText);
    if (tasa === null && texto === null) return null;
    return { tasa, tipo: row['TIPOTASAADVIMPO'] ?? null, texto };
  }

  /**
   * The line's contributions asked with everything a preference or a requirement could need (a proof
   * of origin, a quantity, an exchange rate): its options are the preferences the data holds for the
   * origin, its requirements those of the fraction on the date. Amounts are not read from it.
   */
  private probe(parameters: LoteParameters, line: ReadLine, nico: string | undefined, records: ReadonlyMap<string, FractionRecords>): Answer | undefined {
    const partida: Partida = {
      fraccion: line.fraccion!,
      nico,
      valorAduana: line.valorAduana ?? new Dec(1000),
      cantidadUmt: line.cantidadUmt ?? new Dec(1),
      certificadoOrigen: true,
      sectorProsec: undefined,
      exportador: undefined,
    };
    const request: ContribucionesRequest = {
      fecha: parameters.fecha,
      paisOrigen: line.paisOrigen ?? '',
      regimen: 'definitivo',
      tipoCambio: new Dec(1),
      partidas: [partida],
    };
    try {
      return computeContribuciones(request, this.sources, records, this.tables);
    } catch {
      return undefined;
    }
  }

  /** `POST /api/v1/contribuciones` for this line alone, or the Spanish sentence saying why it cannot be computed. */
  private contribuciones(
    parameters: LoteParameters,
    line: ReadLine,
    nico: string | undefined,
    records: ReadonlyMap<string, FractionRecords>,
    rate: TipoCambioAplicable | SinTipoCambio,
  ): Resultado['contribuciones'] | string {
    if (line.paisOrigen === null) return 'falta pais_origen: sin el país de origen no se calculan las contribuciones';
    const partida: Partida = {
      fraccion: line.fraccion!,
      nico,
      valorAduana: line.valorAduana!,
      cantidadUmt: line.cantidadUmt,
      certificadoOrigen: line.certificadoOrigen,
      sectorProsec: undefined,
      exportador: undefined,
    };
    const request: ContribucionesRequest = {
      fecha: parameters.fecha,
      paisOrigen: line.paisOrigen,
      regimen: 'definitivo',
      tipoCambio: null,
      partidas: [partida],
    };
    try {
      const answer = computeContribuciones(request, this.sources, records, this.tables, rate);
      return { total_general: answer.totales.general, total_mejor: answer.totales.mejor, mejor_opcion: answer.partidas[0]!.mejor_opcion };
    } catch (error) {
      return contributionError(error);
    }
  }

  /** The exchange rate of the batch's date, as POST /api/v1/contribuciones takes it when the request gives none (once per store and date). */
  private rateOf(store: Store, fecha: string): Promise<TipoCambioAplicable | SinTipoCambio> {
    let known = this.ratesOf.get(store);
    if (!known) this.ratesOf.set(store, (known = new Map<string, Promise<TipoCambioAplicable | SinTipoCambio>>()));
    let rate = known.get(fecha);
    if (rate === undefined) known.set(fecha, (rate = tipoCambioOn(store, fecha)));
    return rate;
  }

  private hasAgreement(store: Store, country: string): Promise<boolean> {
    let known = this.agreementsOf.get(store);
    if (!known) this.agreementsOf.set(store, (known = new Map<string, Promise<boolean>>()));
    let answer = known.get(country);
    if (answer === undefined) {
      const keys = countryKeys(country, this.tables.groups);
      answer = (async () => {
        for (const { rs, field } of this.agreements) {
          const conditions: Condition[] = [{ kind: 'or', any: keys.map((value) => ({ kind: 'ci' as const, field, value })) }];
          if ((await store.search(rs, { conditions, skip: 0, limit: 1 })).length > 0) return true;
        }
        return false;
      })();
      answer.catch(() => known.delete(country));
      known.set(country, answer);
    }
    return answer;
  }
}

/** A description as `buscar` takes it: at most its longest query, cut at a word. */
function searchOf(descripcion: string): { text: string; code: string | null; skip: number; limit: number } {
  let q = descripcion;
  if (q.length > MAX_QUERY_LENGTH) {
    q = q.slice(0, MAX_QUERY_LENGTH);
    const space = q.lastIndexOf(' ');
    if (space > MAX_QUERY_LENGTH / 2) q = q.slice(0, space);
  }
  return { text: q, code: queryCode(q), skip: 0, limit: MATCHED_AMONG };
}

function bestPreference(answer: Answer): Resultado['preferencia'] {
  let best: { opcion: Answer['partidas'][number]['opciones'][number]; rate: Dec } | undefined;
  for (const opcion of answer.partidas[0]?.opciones ?? []) {
    if (opcion.tratamiento === 'general') continue;
    const igi = opcion.contribuciones.find((c) => c.clave === 'IGI');
    const rate = new Dec(igi?.tasa ?? '0');
    if (best === undefined || rate.lessThan(best.rate)) best = { opcion, rate };
  }
  if (best === undefined) return null;
  const igi = best.opcion.contribuciones.find((c) => c.clave === 'IGI');
  return { tratamiento: best.opcion.tratamiento, acuerdo: best.opcion.acuerdo ?? null, tasa: igi?.tasa ?? null };
}

function countRequirements(answer: Answer): NonNullable<Resultado['requisitos']> {
  const counts = { permisos: 0, regulaciones: 0, noms: 0, cupos: 0 };
  for (const r of answer.partidas[0]?.requisitos ?? []) {
    const key = REQUIREMENT_COUNT[r.conjunto];
    if (key !== undefined) counts[key]++;
  }
  return counts;
}

/** A refused computation (the contract's 422 or 404) as a Spanish sentence; anything else is not the line's fault. */
function contributionError(error: unknown): string {
  const detail = (error as { detail?: unknown }).detail;
  if (Array.isArray(detail)) {
    return (detail as { loc?: unknown[]; msg?: string }[])
      .map((d) => {
        const field = d.loc?.at(-1);
        if (field === 'cantidad_umt') return 'falta cantidad_umt: el arancel o la cuota de esta fracción se calcula por cantidad';
        if (field === 'tipo_cambio') return 'falta el tipo de cambio: una cuota de esta fracción está en dólares';
        return `no se calcularon las contribuciones (${d.msg ?? 'dato inválido'})`;
      })
      .join('; ');
  }
  if (typeof detail === 'string') return `no se calcularon las contribuciones (${detail})`;
  throw error;
}
