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
import type { DemoRecord, Rec } from './sources.js';
import { loadSources } from './sources.js';
import { fraccionesUsa } from './usa.js';

/** Every record of the demo dataset, record set by record set. */
export function* demoRecords(sourcesDir: string): Generator<DemoRecord> {
  const src = loadSources(sourcesDir);
  const ruleRecords = rules(src);
  const vehicles = vehicleMakes(src);
  const sets: readonly (readonly [string, () => Rec[]])[] = [
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
  for (const [recordSet, build] of sets) {
    for (const record of build()) yield { recordSet, record };
  }
}

export type { DemoRecord } from './sources.js';
export { DEMO_MARK } from './sources.js';
