/**
 * The contributions of an import, from the request and the records that apply (no I/O here): for
 * each line, the general treatment and every preference the request qualifies for, each with its IGI,
 * DTA, compensatory duties, IEPS and IVA, the best option, the requirements and notes. The rules and
 * their legal basis are in docs/contribuciones.md; the contract is ../shared/spec/contribuciones.md.
 */
import { paced as pacedSteps } from '../turns.js';
import type { ValidationDetail } from '../errors.js';
import { RequestValidationError, refusal } from '../errors.js';
import { dotted } from '../fraccion.js';
import type { Treatment } from '../record-sets/roles.js';
import type { Row } from '../store/store.js';
import type { DtaShare } from './dta.js';
import { dtaPart } from './dta.js';
import type { Computed, Specific } from './lines.js';
import { contribucion, make, sum } from './lines.js';
import type { Dec } from './money.js';
import { Dec as Decimal, ZERO, money, percentText, stored, whole } from './money.js';
import type { ContribucionesRequest, Partida } from './request.js';
import type { Ausencia, ContribucionesAnswer as Answer, Opcion, PartidaAnswer, Requisito } from './schema.js';
import type { Circumstances, FractionRecords, Source } from './sources.js';
import { applies, countryKeys, isMarked, rolesOf, sourceRef, text } from './sources.js';
import type { Tables } from './tables.js';
import type { SinTipoCambio, TipoCambioAplicable } from '../tipos-cambio/rule.js';
import { isAplicable } from '../tipos-cambio/rule.js';
import { agreementsOf, dtaExemption } from './tables.js';

export const ESTIMATE_WARNING = 'Estimación informativa; no sustituye al pedimento ni a la clasificación arancelaria.';
const VAT_RATE = new Decimal(16);
const TREATMENTS: readonly Treatment[] = ['tlc', 'aladi', 'prosec', 'cupo'];
const LABEL: Record<Treatment, string> = { tlc: 'TLC', aladi: 'ALADI', prosec: 'PROSEC', cupo: 'de cupo' };
const MAX_DESCRIPTION = 300;

/** The answer of `POST /api/v1/contribuciones`, as its schema says it (schema.ts). */
export type { ContribucionesAnswer as Answer } from './schema.js';

/** A line whose fraction and NICO were found. */
interface Resolved {
  readonly partida: Partida;
  readonly index: number;
  readonly nico: string;
  readonly tariff: Row;
  readonly records: FractionRecords;
}

/** What the computation of one request shares between its lines. */
interface Run {
  readonly request: ContribucionesRequest;
  readonly tables: Tables;
  readonly countries: readonly string[];
  readonly missing: Map<string, ValidationDetail>;
  /** Record sets whose historic or demo records were used. */
  readonly marked: Set<string>;
  /** Lines of the same fraction and NICO share the records that apply and the requirements (500 lines, few fractions). */
  readonly applicable: Map<string, Row[]>;
  readonly requirements: Map<string, Requisito[]>;
  /** The rate the data gives for `fecha` when the request gives none (undefined: not looked up). */
  readonly rate: TipoCambioAplicable | SinTipoCambio | undefined;
  /** Whether a conversion used it: only then does the answer name it. */
  rateUsed: boolean;
}

const tariffSource = (sources: readonly Source[]): Source => {
  const source = sources.find((s) => rolesOf(s, 'tariff').length > 0);
  if (!source) throw new Error('no record set declares the tariff role');
  return source;
};

/** Finds each line's fraction and NICO; the first one not in the data is a 404 and nothing is computed. */
function resolve(request: ContribucionesRequest, sources: readonly Source[], records: ReadonlyMap<string, FractionRecords>): Resolved[] {
  const tariff = tariffSource(sources);
  const nicoErrors: ValidationDetail[] = [];
  const resolved = request.partidas.flatMap((partida, index): Resolved[] => {
    const own = records.get(partida.fraccion);
    const rows = own?.get(tariff) ?? [];
    const name = dotted(partida.fraccion) + (partida.nico ? `.${partida.nico}` : '');
    const nicos = [...new Set(rows.map((r) => text(r, tariff.nicoField)).filter((n): n is string => n !== null))].sort();
    if (rows.length === 0) throw refusal('FRACTION_NOT_FOUND_NAMED', { fraccion: name });
    if (partida.nico === undefined && nicos.length > 1) {
      const msg = `Field required: the fraction has several NICO (${nicos.join(', ')})`;
      nicoErrors.push({ type: 'missing', loc: ['body', 'partidas', index, 'nico'], msg, input: null });
      return [];
    }
    const nico = partida.nico ?? nicos[0] ?? '00';
    const row = rows.find((r) => text(r, tariff.nicoField) === nico) ?? rows.find((r) => text(r, tariff.nicoField) === null);
    if (!row) throw refusal('FRACTION_NOT_FOUND_NAMED', { fraccion: name });
    return [{ partida, index, nico, tariff: row, records: own! }];
  });
  if (nicoErrors.length > 0) throw new RequestValidationError(nicoErrors);
  return resolved;
}

function need(run: Run, loc: (string | number)[], msg: string): void {
  const key = loc.join('/');
  if (!run.missing.has(key)) run.missing.set(key, { type: 'missing', loc, msg, input: null });
}

function quantity(run: Run, line: Resolved, what: string): Dec {
  if (line.partida.cantidadUmt) return line.partida.cantidadUmt;
  need(run, ['body', 'partidas', line.index, 'cantidad_umt'], `Field required: ${what} needs the quantity in the tariff unit`);
  return ZERO;
}

/**
 * The rate a conversion uses: the request's own, else the rate the law fixes for `fecha` (the FIX
 * published in the DOF the banking day before; src/tipos-cambio/rule.ts), named in the answer; when
 * the data cannot settle that date, a 422 on `tipo_cambio` asks for it.
 */
function exchange(run: Run, what: string): Dec {
  if (run.request.tipoCambio) return run.request.tipoCambio;
  const rate = run.rate;
  if (rate && isAplicable(rate)) {
    run.rateUsed = true;
    return new Decimal(rate.tipo_cambio);
  }
  const why = rate ? ` and the loaded data holds no exchange rate for ${run.request.fecha} (${rate.motivo})` : '';
  need(run, ['body', 'tipo_cambio'], `Field required: ${what} is in US dollars${why}; give the exchange rate (tipo_cambio)`);
  return ZERO;
}

function applicable(run: Run, line: Resolved, source: Source): Row[] {
  const key = `${line.partida.fraccion}.${line.nico}:${source.rs.path}`;
  const known = run.applicable.get(key);
  if (known) return known;
  const at: Circumstances = { nico: line.nico, countries: run.countries, fecha8: run.request.fecha.replace(/-/g, '') };
  const rows = (line.records.get(source) ?? []).filter((row) => applies(source, row, at));
  if (!run.marked.has(source.rs.path) && rows.some(isMarked)) run.marked.add(source.rs.path);
  run.applicable.set(key, rows);
  return rows;
}

/** The general import duty from the tariff record, or a note saying why there is none. */
function generalIgi(run: Run, line: Resolved, source: Source, notes: string[]): Computed | null {
  const role = rolesOf(source, 'tariff')[0]!;
  const row = line.tariff;
  if (!run.marked.has(source.rs.path) && isMarked(row)) run.marked.add(source.rs.path);
  const written = text(row, role.rateText) ?? '';
  const fundamento = `LIGIE art. 1, fracción ${dotted(line.partida.fraccion)}`;
  if (/prohibid/i.test(written)) {
    notes.push(`Importación prohibida según la tarifa (${written}): sin IGI calculable`);
    return null;
  }
  const rate = stored(row[role.rate]);
  const amount = stored(row[role.specificAmount]);
  const isMixed = text(row, role.mixed)?.toUpperCase() === 'S';
  const isSpecific = text(row, role.specific)?.toUpperCase() === 'S';
  if ((isMixed || isSpecific) && amount === null) {
    notes.push(`sin tasa IGI en los datos (arancel ${isMixed ? 'mixto' : 'específico'} sin cuota: ${written || 'sin texto'})`);
    return null;
  }
  if (!isMixed && !isSpecific && rate === null) {
    notes.push('sin tasa IGI en los datos');
    return null;
  }
  const what = `the ${isMixed ? 'mixed' : 'specific'} import duty (IGI)`;
  const specific: Specific | undefined =
    amount && (isMixed || isSpecific)
      ? { amount, unit: `USD por ${text(row, role.unit) ?? 'unidad'}`, exchange: exchange(run, what), quantity: quantity(run, line, what) }
      : undefined;
  return contribucion({
    clave: 'IGI',
    base: line.partida.valorAduana,
    rate: isSpecific ? undefined : (rate ?? ZERO),
    specific,
    fundamento: `${fundamento}; Ley de Comercio Exterior art. 12`,
    fuente: sourceRef(source, row),
  });
}

/** One compensatory-duty line per record that applies: the exporter's own, otherwise the one for all others. */
function compensatory(run: Run, line: Resolved, sources: readonly Source[], notes: string[]): Computed[] {
  const out: Computed[] = [];
  for (const source of sources) {
    for (const role of rolesOf(source, 'compensatory')) {
      const rows = applicable(run, line, source);
      if (rows.length === 0) continue;
      const company = (r: Row): string | null => text(r, role.exporter);
      const others = (r: Row): boolean => company(r) === null || /^las\s+dem[aá]s/i.test(company(r)!);
      const wanted = line.partida.exportador?.toUpperCase();
      const own = wanted ? rows.filter((r) => company(r)?.toUpperCase() === wanted) : [];
      const chosen = own.length > 0 ? own : rows.filter(others);
      if (chosen.length === 0)
        notes.push(`Hay cuotas compensatorias solo para exportadores determinados (${rows.map(company).join('; ')}): indique exportador si es uno de ellos`);
      for (const row of chosen) {
        const percent = stored(row[role.percent]);
        const dollars = stored(row[role.amount]);
        const currency = text(row, role.currency)?.toUpperCase() ?? 'USD';
        const fundamento = `Ley de Comercio Exterior art. 63; ${text(row, role.resolution) ?? 'resolución publicada en el DOF'}`;
        const fuente = sourceRef(source, row);
        if (percent !== null) {
          out.push(contribucion({ clave: 'CC', base: line.partida.valorAduana, rate: percent, fundamento, fuente }));
        } else if (dollars !== null && currency === 'USD') {
          const what = 'a specific compensatory duty (CC)';
          const specific = { amount: dollars, unit: 'USD por unidad de la cuota', exchange: exchange(run, what), quantity: quantity(run, line, what) };
          out.push(contribucion({ clave: 'CC', base: line.partida.valorAduana, specific, fundamento, fuente }));
        } else {
          notes.push(`Cuota compensatoria ${fuente.conjunto} ${String(fuente.id)} sin monto calculable${dollars !== null ? ` (en ${currency})` : ''}`);
        }
      }
    }
  }
  return out;
}

/** IEPS lines of the records that apply, on the base the option gives (everything but IVA). */
function excise(run: Run, line: Resolved, sources: readonly Source[]): ((base: Dec) => Computed)[] {
  const out: ((base: Dec) => Computed)[] = [];
  for (const source of sources) {
    for (const role of rolesOf(source, 'excise')) {
      for (const row of applicable(run, line, source)) {
        const type = (text(row, role.type) ?? '').toUpperCase();
        const rate = type === 'CUOTA' ? null : stored(row[role.rate]);
        const quota = type.includes('VALOREM') ? null : stored(row[role.quota]);
        if (rate === null && quota === null) continue;
        const what = 'the excise quota (IEPS)';
        const specific = quota
          ? { amount: quota, unit: `pesos por ${text(row, role.unit) ?? 'unidad'}`, exchange: new Decimal(1), quantity: quantity(run, line, what) }
          : undefined;
        const fundamento = text(row, role.basis) ?? 'Ley del IEPS art. 2';
        out.push((base) => contribucion({ clave: 'IEPS', base, rate: rate ?? undefined, specific, fundamento, fuente: sourceRef(source, row) }));
      }
    }
  }
  return out;
}

interface Preference {
  readonly tratamiento: Treatment;
  readonly acuerdo: string;
  readonly identifier: string;
  readonly igi: Computed;
}

function preferences(run: Run, line: Resolved, sources: readonly Source[], notes: string[]): Preference[] {
  const out: Preference[] = [];
  const { partida } = line;
  for (const treatment of TREATMENTS) {
    for (const source of sources) {
      for (const role of rolesOf(source, 'preference').filter((r) => r.treatment === treatment)) {
        let rows = applicable(run, line, source);
        if (rows.length === 0) continue;
        const label = LABEL[treatment];
        if (role.requires === 'certificado_origen' && !partida.certificadoOrigen) {
          notes.push(`Hay tasa ${label} para ${run.request.paisOrigen}: requiere certificado de origen`);
          continue;
        }
        if (role.requires === 'sector_prosec' && role.sector) {
          const sectors = [...new Set(rows.map((r) => text(r, role.sector!)?.toUpperCase()).filter(Boolean))].join(', ');
          if (!partida.sectorProsec) {
            notes.push(`Hay tasa ${label} para los sectores ${sectors}: requiere sector_prosec`);
            continue;
          }
          rows = rows.filter((r) => text(r, role.sector!)?.toUpperCase() === partida.sectorProsec);
          if (rows.length === 0) notes.push(`Sin tasa ${label} para el sector ${partida.sectorProsec}; la hay para ${sectors}`);
        }
        for (const row of rows) {
          const fuente = sourceRef(source, row);
          const rate = role.rates.map((r) => (r.percentText ? percentText(row[r.field]) : stored(row[r.field]))).find((r) => r !== null);
          if (rate === undefined || rate === null) {
            notes.push(`Registro ${fuente.conjunto} ${String(fuente.id)} sin tasa utilizable (${text(row, role.rateText) ?? 'vacía'}): no da opción ${label}`);
            continue;
          }
          const acuerdo = (role.agreement && text(row, role.agreement)) || `${label} (${run.request.paisOrigen})`;
          const igi = contribucion({ clave: 'IGI', base: partida.valorAduana, rate, fundamento: `${role.law}; ${acuerdo}`, fuente });
          out.push({ tratamiento: treatment, acuerdo, identifier: role.identifier, igi });
        }
      }
    }
  }
  return out;
}

/** Treatments an agreement with the origin country can grant, whose absence from the data is said. */
const AGREEMENT_TREATMENTS = ['tlc', 'aladi'] as const;

/**
 * For each treatment an agreement of the origin with Mexico grants (the project's table of
 * agreements, with the country's groups), whether the data holds any preference record of it for the
 * fraction and origin (whatever the request qualifies for): none is an absence, said in the notes.
 */
function absences(run: Run, line: Resolved, sources: readonly Source[], generalIsBest: boolean): Ausencia[] {
  const out: Ausencia[] = [];
  for (const treatment of AGREEMENT_TREATMENTS) {
    const holding = sources.filter((s) => rolesOf(s, 'preference').some((r) => r.treatment === treatment));
    if (holding.length === 0 || holding.some((s) => applicable(run, line, s).length > 0)) continue;
    const acuerdos = agreementsOf(run.tables, treatment, run.countries, run.request.fecha);
    if (acuerdos.length === 0) continue;
    const pais = run.request.paisOrigen;
    const code = dotted(line.partida.fraccion);
    const advice = generalIsBest ? 'consulte el acuerdo antes de tomar el trato general como la mejor opción' : 'consulte el acuerdo';
    const nota = `Los datos cargados no registran preferencia ${LABEL[treatment]} para la fracción ${code} con origen ${pais}, aunque ${pais} tiene acuerdo con México (${acuerdos.join(', ')}): que no haya registro no significa que no haya preferencia; ${advice}.`;
    out.push({ tratamiento: treatment, conjunto: holding[0]!.rs.path, acuerdos, nota });
  }
  return out;
}

function requirements(run: Run, line: Resolved, sources: readonly Source[]): Requisito[] {
  const key = `${line.partida.fraccion}.${line.nico}`;
  const known = run.requirements.get(key);
  if (known) return known;
  const found: { order: number; req: Requisito }[] = [];
  for (const source of sources) {
    for (const role of rolesOf(source, 'requirement')) {
      for (const row of applicable(run, line, source)) {
        const parts = role.describe.map((f) => text(row, f)).filter((t): t is string => t !== null);
        const all = parts.join(' — ');
        const descripcion = all.length > MAX_DESCRIPTION ? `${all.slice(0, MAX_DESCRIPTION - 1).trimEnd()}…` : all;
        const ref = sourceRef(source, row);
        found.push({ order: role.order, req: { conjunto: ref.conjunto, id: ref.id, descripcion } });
      }
    }
  }
  const list = found.sort((a, b) => a.order - b.order).map((f) => f.req);
  run.requirements.set(key, list);
  return list;
}

function vat(line: Resolved, source: Source, base: Dec): Computed {
  const role = rolesOf(source, 'tariff')[0]!;
  const own = stored(line.tariff[role.vatRate]);
  const fuente = own ? sourceRef(source, line.tariff) : { tabla: 'iva-general' };
  return contribucion({ clave: 'IVA', base, rate: own ?? VAT_RATE, fundamento: 'Ley del IVA arts. 1 y 27', fuente });
}

function option(
  tratamiento: Opcion['tratamiento'],
  extra: { acuerdo?: string; identificadores: string[] },
  line: Resolved,
  parts: { igi: Computed | null; dta: Computed | null; cc: Computed[]; ieps: ((base: Dec) => Computed)[]; tariff: Source },
): { opcion: Opcion; total: Dec } {
  const before = [parts.igi, parts.dta, ...parts.cc].filter((c): c is Computed => c !== null);
  const valor = line.partida.valorAduana;
  const iepsBase = valor.plus(sum(before.map((c) => c.importe)));
  const ieps = parts.ieps.map((f) => f(iepsBase));
  const iva = vat(line, parts.tariff, iepsBase.plus(sum(ieps.map((c) => c.importe))));
  const lines = [...before, ...ieps, iva];
  const total = sum(lines.map((c) => c.importe));
  const opcion: Opcion = {
    tratamiento,
    ...(extra.acuerdo !== undefined && { acuerdo: extra.acuerdo }),
    contribuciones: lines.map((c) => c.line),
    identificadores: extra.identificadores,
    total: whole(total),
  };
  return { opcion, total };
}

function exemptDta(run: Run, treatment: Treatment, share: DtaShare | null): Computed | null {
  const row = dtaExemption(run.tables, treatment, run.request.paisOrigen, run.request.fecha);
  if (!row || !share) return share?.computed ?? null;
  return make('DTA', share.base, 'exento', ZERO, row.fundamento, { tabla: 'dta', fila: row.fila }, { tasa: '0.00' });
}

function computeLine(run: Run, line: Resolved, sources: readonly Source[], dta: DtaShare | null): { answer: PartidaAnswer; general: Dec; best: Dec } {
  const tariff = tariffSource(sources);
  const notes: string[] = [];
  const cc = compensatory(run, line, sources, notes);
  const ieps = excise(run, line, sources);
  const igi = generalIgi(run, line, tariff, notes);
  const options = [option('general', { identificadores: [] }, line, { igi, dta: dta?.computed ?? null, cc, ieps, tariff })];
  for (const p of preferences(run, line, sources, notes)) {
    const parts = { igi: p.igi, dta: exemptDta(run, p.tratamiento, dta), cc, ieps, tariff };
    options.push(option(p.tratamiento, { acuerdo: p.acuerdo, identificadores: [p.identifier] }, line, parts));
  }
  const best = options.reduce((a, b) => (b.total.lessThan(a.total) ? b : a));
  const missing = absences(run, line, sources, best.opcion.tratamiento === 'general');
  for (const a of missing) notes.push(a.nota);
  const role = rolesOf(tariff, 'tariff')[0]!;
  const answer: PartidaAnswer = {
    fraccion: line.partida.fraccion,
    nico: line.nico,
    descripcion: text(line.tariff, role.description),
    umt: text(line.tariff, role.unit),
    valor_aduana: money(line.partida.valorAduana),
    opciones: options.map((o) => o.opcion),
    mejor_opcion: best.opcion.tratamiento,
    requisitos: requirements(run, line, sources),
    notas: [...new Set(notes)],
    ausencias: missing,
  };
  return { answer, general: options[0]!.total, best: best.total };
}

/**
 * The whole answer. `records` holds, per fraction of the request, the rows of every source (as
 * readRecords gives them). Throws the contract's 404 or 422 when a line cannot be computed.
 */
export function computeContribuciones(
  request: ContribucionesRequest,
  sources: readonly Source[],
  records: ReadonlyMap<string, FractionRecords>,
  tables: Tables,
  rate?: TipoCambioAplicable | SinTipoCambio,
): Answer {
  const steps = computing(request, sources, records, tables, rate);
  for (;;) {
    const step = steps.next();
    if (step.done === true) return step.value;
  }
}

/** The longest the paced computation holds the event loop before letting other requests in. */
export const TURN_BUDGET_MS = 4;

/** Runs `steps` to its end, giving the event loop a turn whenever TURN_BUDGET_MS have gone by since the last. */
export const paced = <T>(steps: Generator<void, T>): Promise<T> => pacedSteps(steps, TURN_BUDGET_MS);

/**
 * The same answer, the event loop free to answer other requests every few milliseconds: 500 lines
 * are a few hundred milliseconds of work, which would otherwise hold every other client (and
 * /health) for as long (issue 26).
 */
export function computeContribucionesPaced(
  request: ContribucionesRequest,
  sources: readonly Source[],
  records: ReadonlyMap<string, FractionRecords>,
  tables: Tables,
  rate?: TipoCambioAplicable | SinTipoCambio,
): Promise<Answer> {
  return paced(computing(request, sources, records, tables, rate));
}

/**
 * The answer as JSON, exactly as JSON.stringify writes it, a line at a time with a pause after each
 * (a 500-line answer is about 1 MB of JSON, tens of milliseconds to write at once).
 */
export function* answerJson(answer: Answer): Generator<void, string> {
  const KEY = '"partidas":[]';
  // The fields before partidas are a checked date, country and regime: the key appears only as the key.
  const rest = JSON.stringify({ ...answer, partidas: [] });
  const at = rest.indexOf(KEY);
  const parts: string[] = [rest.slice(0, at + KEY.length - 1)];
  for (const [i, line] of answer.partidas.entries()) {
    parts.push(i === 0 ? JSON.stringify(line) : `,${JSON.stringify(line)}`);
    yield;
  }
  parts.push(rest.slice(at + KEY.length - 1));
  return parts.join('');
}

/** The computation, pausing (yielding) after every line; one definition for both ways of running it. */
function* computing(
  request: ContribucionesRequest,
  sources: readonly Source[],
  records: ReadonlyMap<string, FractionRecords>,
  tables: Tables,
  rate: TipoCambioAplicable | SinTipoCambio | undefined,
): Generator<void, Answer> {
  const lines = resolve(request, sources, records);
  const run: Run = {
    request,
    tables,
    countries: countryKeys(request.paisOrigen, tables.groups),
    missing: new Map(),
    marked: new Set(),
    applicable: new Map(),
    requirements: new Map(),
    rate,
    rateUsed: false,
  };
  const warnings = [ESTIMATE_WARNING];
  const dta = dtaPart(
    tables,
    request.fecha,
    lines.map((l) => l.partida.valorAduana),
    warnings,
  );
  const computed: ReturnType<typeof computeLine>[] = [];
  for (const [i, line] of lines.entries()) {
    computed.push(computeLine(run, line, sources, dta[i] ?? null));
    yield;
  }
  if (run.missing.size > 0) throw new RequestValidationError([...run.missing.values()]);
  if (run.marked.size > 0) {
    warnings.push(
      `Datos históricos o de demostración (marcados HISTÓRICO o DEMO) en: ${[...run.marked].join(', ')}; las tasas no son vigentes y el cálculo solo ilustra el método.`,
    );
  }
  const applied = run.rateUsed && rate && isAplicable(rate) ? rate : undefined;
  return {
    fecha: request.fecha,
    pais_origen: request.paisOrigen,
    regimen: request.regimen,
    ...(applied && { tipo_cambio_aplicado: { tipo_cambio: applied.tipo_cambio, determinado: applied.determinado, publicado_dof: applied.publicado_dof } }),
    partidas: computed.map((c) => c.answer),
    totales: { general: whole(sum(computed.map((c) => c.general))), mejor: whole(sum(computed.map((c) => c.best))) },
    advertencias: warnings,
  };
}
