/**
 * Records for the contributions tests, over real fractions, with rates chosen so that each worked
 * case can be checked by hand (test/contribuciones.test.ts says where each figure comes from).
 */
import { recordToRow } from '../src/data/record-row.js';
import { recordSets } from '../src/record-sets/index.js';
import type { DatasetWriter } from '../src/store/store.js';

type Records = Record<string, Record<string, string | number | null>[]>;

export const CONTRIBUCIONES_RECORDS: Records = {
  fracciones: [
    {
      SYSID: 1,
      FRACCION: '01012101',
      FRACCIONPUNTO: '0101.21.01',
      NICO: '00',
      DESCRIPCION: 'Reproductores de raza pura',
      UMABREVIACION: 'CBZA',
      ADVIMPOTXT: '10%',
      ADVIMPONUM: '10.00',
      TIPOTASAADVIMPO: 1,
    },
    {
      SYSID: 2,
      FRACCION: '04021099',
      FRACCIONPUNTO: '0402.10.99',
      NICO: '00',
      DESCRIPCION: 'Las demás',
      UMABREVIACION: 'KG',
      ADVIMPOTXT: 'AMX (10%+0.36)',
      ADVIMPONUM: '10.00',
      ARANCELMIXTO: 'S',
      TASAMIXTA: '0.360000',
    },
    {
      SYSID: 3,
      FRACCION: '22030001',
      FRACCIONPUNTO: '2203.00.01',
      NICO: '00',
      DESCRIPCION: 'Cerveza de malta',
      UMABREVIACION: 'L',
      ADVIMPOTXT: '20%',
      ADVIMPONUM: '20.00',
    },
    {
      SYSID: 4,
      FRACCION: '72085101',
      FRACCIONPUNTO: '7208.51.01',
      NICO: '00',
      DESCRIPCION: 'Laminados planos de hierro o acero',
      UMABREVIACION: 'KG',
      ADVIMPOTXT: '5%',
      ADVIMPONUM: '5.00',
    },
    {
      SYSID: 5,
      FRACCION: '84713001',
      FRACCIONPUNTO: '8471.30.01',
      NICO: '01',
      DESCRIPCION: 'Portátiles',
      UMABREVIACION: 'PZA',
      ADVIMPOTXT: 'Ex.',
      ADVIMPONUM: '0.00',
    },
    {
      SYSID: 6,
      FRACCION: '84713001',
      FRACCIONPUNTO: '8471.30.01',
      NICO: '02',
      DESCRIPCION: 'Las demás',
      UMABREVIACION: 'PZA',
      ADVIMPOTXT: 'Ex.',
      ADVIMPONUM: '0.00',
    },
    {
      SYSID: 7,
      FRACCION: '30049099',
      FRACCIONPUNTO: '3004.90.99',
      NICO: '00',
      DESCRIPCION: 'Medicamentos',
      UMABREVIACION: 'KG',
      ADVIMPOTXT: null,
      ADVIMPONUM: null,
      TASAIVAINTERIOR: '0.00',
    },
    {
      SYSID: 8,
      FRACCION: '02011001',
      FRACCIONPUNTO: '0201.10.01',
      NICO: '00',
      DESCRIPCION: 'En canales o medias canales',
      UMABREVIACION: 'KG',
      ADVIMPOTXT: '20%',
      ADVIMPONUM: '20.00',
      NOTAS: 'HISTÓRICO: tasa de prueba.',
    },
  ],
  tlcs: [
    { SYSID: 1, FRACCION: '01012101', PAIS: 'USA', TASATXT: 'Ex.', TASA1NUM: '0.00', ORDEN: 1 },
    { SYSID: 2, FRACCION: '01012101', PAIS: 'EMU', TASATXT: '2%', TASA1NUM: '2.00', ORDEN: 2 },
    { SYSID: 3, FRACCION: '01012101', PAIS: 'ISR', TASATXT: 'EXCL', TASA1NUM: null, ORDEN: 3 },
  ],
  aladi2: [{ SYSID: 1, FRACCION: '01012101', ACUERDO: 'Acuerdo Regional No. 4', PAIS: 'PRY', TASATXT: '48%', TASACALCULADA: '5.2%' }],
  prosec: [
    { SYSID: 1, FRACCION: '72085101', SECTOR: 'II', TASATXT: 'Ex.', TASANUM: '0.00' },
    { SYSID: 2, FRACCION: '72085101', SECTOR: 'XI', TASATXT: '3%', TASANUM: '3.00' },
  ],
  cupos: [
    {
      SYSID: 1,
      FRACCION: '02011001',
      TIPOOPERACION: 'I',
      ACUERDO: 'Cupo de carne de res',
      TASATXT: 'Ex.',
      TASANUM: '0.00',
      FECHAINICIO: '20240101',
      FECHAFIN: '20241231',
    },
    { SYSID: 2, FRACCION: '02011001', TIPOOPERACION: 'E', ACUERDO: 'Cupo de exportación', TASATXT: 'Ex.', TASANUM: '0.00' },
  ],
  cuotas2: [
    {
      SYSID: 1,
      FRACCION: '72085101',
      PAIS: 'CHN',
      EMPRESA: 'Las demás',
      PORCENTAJE: '25.00',
      RESOLUCION: 'Resolución final de prueba',
      FECHAINICIO: '20200101',
      FECHAFIN: '20301231',
    },
    {
      SYSID: 2,
      FRACCION: '72085101',
      PAIS: 'CHN',
      EMPRESA: 'Aceros Ejemplo',
      DOLARES: '0.1000',
      CLAVEMONEDA: 'USD',
      RESOLUCION: 'Resolución final de prueba',
      FECHAINICIO: '20200101',
      FECHAFIN: '20301231',
    },
    { SYSID: 3, FRACCION: '72085101', PAIS: 'CHN', EMPRESA: 'Las demás', PORCENTAJE: '99.00', FECHAINICIO: '20100101', FECHAFIN: '20151231' },
  ],
  ieps: [
    {
      CONSECUTIVO: 1,
      FRACCION_SIN_PUNTO: '22030001',
      FRACCION_CON_PUNTO: '2203.00.01',
      TIPO: 'AD VALOREM',
      TASA: '26.50',
      FUNDAMENTO: 'Ley del IEPS, art. 2, fracción I, inciso A), numeral 1',
    },
  ],
  'requisito-previo': [{ SYSID: 1, FRACCION: '01012101', PERMISO: 'C1', DESCRIPCION: 'Permiso previo de la SE' }],
  regulaciones: [
    { SYSID: 1, FRACCION: '01012101', IMPORTACION: 'S', EXPORTACION: 'N', CONDICION: 'Certificado zoosanitario' },
    { SYSID: 2, FRACCION: '01012101', IMPORTACION: 'N', EXPORTACION: 'S', CONDICION: 'Solo exportación' },
  ],
  noms: [{ SYSID: 1, FRACCION: '01012101', NOM: 'NOM-000-TEST-2024', DESCRIPCION: 'Norma de prueba', IMPORTACION: 'S' }],
};

export function fillContribuciones(writer: DatasetWriter): void {
  const byPath = new Map(recordSets.map((rs) => [rs.path, rs]));
  for (const [path, records] of Object.entries(CONTRIBUCIONES_RECORDS)) {
    const rs = byPath.get(path)!;
    for (const record of records) writer.insert(rs, recordToRow(rs, record));
  }
}
