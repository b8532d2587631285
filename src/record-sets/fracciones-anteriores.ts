// Correlation between a current fraction and the fraction(s) it replaced when the nomenclature changed.
import type { FractionFilter } from './define.js';
import { date8, defineRecordSet, fields, int, str } from './define.js';

/** By the current fraction: what it replaced. */
export const byCurrentFraction: FractionFilter = { param: 'fraccion_actual', rule: 'fraction', field: 'FRACCIONACTUAL', nicoField: 'NICOACTUAL' };
/** By the replaced fraction: what replaced it. */
export const byPreviousFraction: FractionFilter = { param: 'fraccion_anterior', rule: 'fraction', field: 'FRACCIONANTERIOR', nicoField: 'NICOANTERIOR' };

export const fraccionesAnteriores = defineRecordSet({
  path: 'fracciones-anteriores',
  schema: 'FraccionesAnterioresResponse',
  description: 'Correlation between a current fraction and the fraction(s) it replaced when the nomenclature changed.',
  fields: fields({
    FRACCIONACTUAL: str(10),
    NICOACTUAL: str(2),
    FRACCIONANTERIOR: str(10),
    NICOANTERIOR: str(2),
    DOF: [date8(), 'publication of the correlation table'],
    SYSID: int(),
  }),
  filters: [byCurrentFraction, byPreviousFraction],
});
