/**
 * `GET /api/v1/tipos-cambio?fecha=YYYY-MM-DD`: the exchange rate the law fixes for a date
 * (../shared/spec/tipos-cambio.md): the Banxico FIX published in the DOF the day before, or the last
 * one published before (CFF art. 20; Ley Aduanera art. 56), from the series of the version that
 * answers. The rule is src/tipos-cambio/rule.ts; this route only reads the date and says it.
 */
import { Type } from '@sinclair/typebox';
import type { Static } from '@sinclair/typebox';
import type { Datasets } from '../store/datasets.js';
import { tipoCambioOn } from '../tipos-cambio/lookup.js';
import { FUENTE_TIPO_CAMBIO, FUNDAMENTO_TIPO_CAMBIO, isAplicable } from '../tipos-cambio/rule.js';
import { refusal } from './errors.js';
import { queryParams } from './contract.js';
import type { ParamSpec } from './params.js';
import type { ProtectedGet } from './route-kinds.js';

const FECHA = {
  name: 'fecha',
  in: 'query',
  kind: 'date',
  description: 'The date the contributions are caused (YYYY-MM-DD); today in Mexico City when not given.',
} as const satisfies ParamSpec;

const date = (description: string) => Type.String({ format: 'date', description });

/** The rate of a date as the route answers it. */
export const TipoCambio = Type.Object(
  {
    fecha: date('The date asked for'),
    tipo_cambio: Type.String({ description: 'Pesos per US dollar, as published (a decimal string, exact)', examples: ['18.4997'] }),
    determinado: date('The banking day the FIX was determined'),
    publicado_dof: date('The day the DOF published it: the last banking day before `fecha` (the banking day after `determinado`)'),
    fuente: Type.String(),
    fundamento: Type.String(),
  },
  { $id: 'TipoCambio', title: 'TipoCambio' },
);
export type TipoCambio = Static<typeof TipoCambio>;

const query = queryParams([FECHA]);

export function tiposCambioRoute(datasets: Datasets): ProtectedGet<unknown, { fecha: string | undefined }, { fecha: string }, typeof TipoCambio> {
  return {
    operationId: 'get_tipo_cambio',
    summary: 'The exchange rate (pesos per US dollar) that applies on a date: the Banxico FIX published in the DOF the banking day before',
    description:
      'The rate the law fixes for a date (Código Fiscal de la Federación art. 20, Ley Aduanera art. 56): the FIX the Banco de México determined on the banking day before the last DOF publication before `fecha`, from the series loaded with the dataset. A date the series cannot settle is a 404 naming the dates it holds.',
    tag: 'tipos-cambio',
    parts: { querystring: query },
    ok: TipoCambio,
    responses: {
      404: {
        description:
          'The data cannot settle the rate of this date (before its first publication, or after the day after its last FIX); the detail names the dates held',
        $ref: 'ErrorMessage#',
      },
    },
    // Without `fecha` the parameters take today's date: the same URL asks for another rate tomorrow.
    urlNamesParameters: ({ query: { fecha } }) => fecha !== undefined,
    parameters: ({ query: { fecha } }) => ({ fecha: fecha ?? datasets.today() }),
    compute: async (store, { fecha }) => {
      const found = await tipoCambioOn(store, fecha);
      if (!isAplicable(found)) throw refusal('NO_EXCHANGE_RATE', { motivo: found.motivo });
      return { ...found, fuente: FUENTE_TIPO_CAMBIO, fundamento: FUNDAMENTO_TIPO_CAMBIO };
    },
  };
}
