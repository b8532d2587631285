/**
 * The demo dataset: every record set filled from the public tariff data shipped in `data/sources`.
 *
 * Four kinds of record, and each says which it is (data/sources/README.md and docs/demo-dataset.md
 * explain the sources):
 * - real: the LIGIE 2022 codes (SAT catalog), the HS 2022 nomenclature, the US HTS 2024;
 * - historic: duties, preferences and non-tariff rules of the TIGIE 2012 as published by SIICEX,
 *   attached only where the same 8-digit fraction still exists in the LIGIE 2022, marked HISTÓRICO;
 * - derived: the correlation of replaced fractions, inferred from the SAT code history;
 * - demo: made up by a seeded generator over real fractions and real keys, marked DEMO.
 *
 * The output depends on the source files only: no clock, no unseeded randomness, so two runs give the
 * same records with the same identifiers.
 */
import { cupos, fraccionesAnteriores } from './cupos.js';
import { fracciones, informacionGeneral } from './fracciones.js';
import { cuotas2, fundamentosTlc, ieps, preciosEstimados2, reit, vehicleMakes } from './generated.js';
import { aladi2, prosec, tlcs } from './preferences.js';
import { rcg2, rules } from './rules.js';
import type { DemoRecord, Rec, Sources } from './sources.js';
import { loadSources } from './sources.js';
import { codesInForce, contentKey, fraccionesAnteriores2012, fracciones2012, informacionGeneral2012, restrictedToEra, sharedIds, TIGIE_2012_FROM } from './tigie2012.js';
import { fraccionesUsa } from './usa.js';

type Builders = readonly (readonly [string, () => Rec[]])[];

/** The current version's record sets (the LIGIE 2022), in insertion order. */
function currentSets(src: Sources, sourcesDir: string): Builders {
  const ruleRecords = rules(src);
  const vehicles = vehicleMakes(src);
  return [
    ['aladi2', () => aladi2(src, sourcesDir)],
    ['cuotas2', () => cuotas2(src)],
    ['cupos', () => cupos(src)],
    ['fracciones', () => fracciones(src)],
    ['fracciones-usa', () => fraccionesUsa(sourcesDir)],
    ['fracciones-anteriores', () => fraccionesAnteriores(src)],
    ['fundamentos-tlc', () => fundamentosTlc(src)],
    ['informacion-general', () => informacionGeneral(src)],
    ['precios-estimados2', () => preciosEstimados2(src)],
    ['prosec', () => prosec(src, sourcesDir)],
    ['rcg2', () => rcg2(src)],
    ['reit', () => reit(src)],
    ['requisito-previo', () => ruleRecords.requisitoPrevio],
    ['tlcs', () => tlcs(src, sourcesDir)],
    ['vehiculos-marcas', () => vehicles.marcas],
    ['vehiculos-modelos', () => vehicles.modelos],
    ['regulaciones', () => ruleRecords.regulaciones],
    ['ieps', () => ieps(src)],
    ['noms', () => ruleRecords.noms],
  ];
}

function* recordsOf(sets: Builders, skip: ReadonlySet<string> = new Set()): Generator<DemoRecord> {
  for (const [recordSet, build] of sets) {
    if (skip.has(recordSet)) continue;
    for (const record of build()) yield { recordSet, record };
  }
}

/** Every record of the demo's current version (the LIGIE 2022), record set by record set: its version's records, the kept ones included. */
export function* demoRecords(sourcesDir: string): Generator<DemoRecord> {
  yield* demoVersions(sourcesDir)[DEMO_VERSION_COUNT - 1]!.records(true);
}

/** One version of the demo dataset, as the demo build loads it. */
export interface DemoVersion {
  readonly vigenteDesde: string;
  /** The version's `fuente`: the sources it is built from. */
  readonly fuente: string;
  /** Record sets that are the same in the version before this one: the build copies them from it instead of inserting them again. */
  readonly keep: readonly string[];
  /** The version's records; with `withKept`, those of the kept record sets too (a build with no version before it to copy them from). */
  readonly records: (withKept?: boolean) => Generator<DemoRecord>;
}

export const FUENTE_2012 = 'TIGIE 2012 (DOF 2012-06-29), catálogo SAT de fracciones; tasas y preferencias históricas SIICEX';
export const FUENTE_2022 = 'LIGIE 2022 (DOF 2022-06-07), catálogo SAT; tasas de la transcripción y históricas SIICEX';
export const LIGIE_2022_FROM = '2022-12-12';
/** How many versions demoVersions gives (the demo build starts a worker for each before reading any source). */
export const DEMO_VERSION_COUNT = 2;

/** The record sets the current version keeps from the older one. */
const KEPT_2022: readonly string[] = ['fracciones-usa'];

/**
 * The demo's versions, oldest first: the 8-digit TIGIE 2012 in force from 2012-07-02 (tigie2012.ts),
 * then the current LIGIE 2022 in force from 2022-12-12, whose records are exactly those of demoRecords.
 * The sources are read once for both. The older version's identifiers follow the current one's
 * records, built all at once for it and then given by the current version too; built for the current
 * version alone, they are built a record set at a time, as given, and none kept.
 */
export function demoVersions(sourcesDir: string): DemoVersion[] {
  const src = loadSources(sourcesDir);
  const builders = currentSets(src, sourcesDir);
  let built: Map<string, Rec[]> | null = null;
  const current = (): Map<string, Rec[]> => (built ??= new Map(builders.filter(([set]) => !KEPT_2022.includes(set)).map(([set, build]) => [set, build()])));
  const of = (set: string): Rec[] => current().get(set) ?? [];

  const older = (): Builders => {
    const codes = codesInForce(src, sourcesDir, TIGIE_2012_FROM);
    const fractions = new Set(codes.map((c) => c.fraction));
    const ruleRecords = rules(src, fractions);
    const same = (set: string, records: Rec[], idField = 'SYSID'): Rec[] => sharedIds(of(set), records, idField, contentKey(idField));
    const byFraction = (set: string, records: Rec[]): Rec[] => sharedIds(of(set), records, 'SYSID', (r) => String(r['FRACCION']));
    const era = (set: string, fractionField = 'FRACCION'): Rec[] => restrictedToEra(of(set), fractions, fractionField, 'NICO');
    return [
      ['aladi2', () => same('aladi2', aladi2(src, sourcesDir, fractions))],
      ['cuotas2', () => era('cuotas2')],
      ['cupos', () => same('cupos', cupos(src, fractions))],
      ['fracciones', () => byFraction('fracciones', fracciones2012(src, codes))],
      ['fracciones-usa', () => fraccionesUsa(sourcesDir)],
      ['fracciones-anteriores', () => same('fracciones-anteriores', fraccionesAnteriores2012(src, codes))],
      ['fundamentos-tlc', () => era('fundamentos-tlc')],
      ['informacion-general', () => byFraction('informacion-general', informacionGeneral2012(src, codes))],
      ['precios-estimados2', () => era('precios-estimados2')],
      ['prosec', () => same('prosec', prosec(src, sourcesDir, fractions))],
      ['rcg2', () => same('rcg2', rcg2(src, fractions))],
      ['reit', () => era('reit')],
      ['requisito-previo', () => same('requisito-previo', ruleRecords.requisitoPrevio)],
      // A partner's place in its fraction's list (ORDEN) names the source row: a cheaper key than the whole content for the largest record set.
      ['tlcs', () => sharedIds(of('tlcs'), tlcs(src, sourcesDir, fractions), 'SYSID', (r) => `${String(r['FRACCION'])}|${String(r['ORDEN'])}`)],
      ['vehiculos-marcas', () => era('vehiculos-marcas')],
      ['vehiculos-modelos', () => era('vehiculos-modelos')],
      ['regulaciones', () => same('regulaciones', ruleRecords.regulaciones)],
      ['ieps', () => era('ieps', 'FRACCION_SIN_PUNTO')],
      ['noms', () => same('noms', ruleRecords.noms)],
    ];
  };

  return [
    { vigenteDesde: TIGIE_2012_FROM, fuente: FUENTE_2012, keep: [], records: () => recordsOf(older()) },
    {
      vigenteDesde: LIGIE_2022_FROM,
      fuente: FUENTE_2022,
      // The HTS 2024 is the only US tariff among the sources: the same lines in both versions.
      keep: KEPT_2022,
      // In the order of currentSets, a kept record set in its place.
      records: function* (withKept = false) {
        const sets = built;
        for (const [recordSet, build] of builders) {
          const kept = KEPT_2022.includes(recordSet);
          if (kept && !withKept) continue;
          for (const record of kept || sets === null ? build() : sets.get(recordSet)!) yield { recordSet, record };
        }
      },
    },
  ];
}

export type { DemoRecord } from './sources.js';
export { DEMO_MARK } from './sources.js';
