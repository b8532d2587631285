// The tariff lines of the TIGIE (LIGIE): description, unit, import (IGI) and export (IGE) duties, VAT, special-tax flags.
import { date8, dec, defineRecordSet, fields, fractionFilters, int, str, text } from './define.js';

export const fracciones = defineRecordSet({
  path: 'fracciones',
  schema: 'FraccionesResponse',
  description:
    'The tariff lines of the TIGIE (LIGIE): description, unit, import (IGI) and export (IGE) duties, VAT, special-tax flags. One record per fraction and NICO.',
  fields: fields({
    FRACCION: str(10),
    FRACCIONPUNTO: [str(10), '0101.21.01'],
    DESCRIPCION: text(),
    UMCLAVE: [str(2), 'unit key, Anexo 22 apéndice 7'],
    UMABREVIACION: [str(4), 'KG, PZA, CBZA'],
    ADVIMPOTXT: [str(19), 'IGI as written: 10%, Ex., Prohibida'],
    ADVIMPONUM: dec(7, 2),
    TIPOTASAADVIMPO: int(),
    ADVEXPOTXT: [str(19), 'IGE as written'],
    ADVEXPONUM: dec(7, 2),
    TIPOTASAADVEXPO: int(),
    TASAIVAFRANJA: dec(7, 2),
    TASAIVAINTERIOR: dec(7, 2),
    TASAISAN: dec(7, 2),
    ARANCELMIXTO: [str(1), 'S/N'],
    TASAMIXTA: dec(11, 6),
    DOF: date8(),
    NOTAS: text(),
    HISTORICO: text(),
    ARANCELESPECIFICO: str(1),
    TIPOVEHICULO: str(1),
    APLICAISAN: str(1),
    APLICAIEPS: str(1),
    NIVEL: [int(), 'level in the hierarchy'],
    NICO: str(2),
    SYSID: int(),
  }),
  paginated: true,
  filters: [...fractionFilters(), { param: 'nivel', rule: 'int', field: 'NIVEL' }],
  contribuciones: {
    roles: [
      {
        kind: 'tariff',
        description: 'DESCRIPCION',
        unit: 'UMABREVIACION',
        rateText: 'ADVIMPOTXT',
        rate: 'ADVIMPONUM',
        mixed: 'ARANCELMIXTO',
        specific: 'ARANCELESPECIFICO',
        specificAmount: 'TASAMIXTA',
        vatRate: 'TASAIVAINTERIOR',
      },
    ],
  },
});
