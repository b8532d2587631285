/** The generated record sets (no public data): real fractions and keys, made-up values, marked DEMO. */
import type { cuotas2 as cuotas2Set } from '../../record-sets/cuotas2.js';
import type { preciosEstimados2 as preciosEstimados2Set } from '../../record-sets/precios-estimados2.js';
import type { ieps as iepsSet } from '../../record-sets/ieps.js';
import type { reit as reitSet } from '../../record-sets/reit.js';
import type { fundamentosTlc as fundamentosTlcSet } from '../../record-sets/fundamentos-tlc.js';
import type { RowOf } from '../../record-sets/define.js';
import type { vehiculosMarcas as vehiculosMarcasSet } from '../../record-sets/vehiculos-marcas.js';
import type { vehiculosModelos as vehiculosModelosSet } from '../../record-sets/vehiculos-modelos.js';
import type { LigieCode, Sources } from './sources.js';
import { charCount, checkedCountry, checkedPermit, DEMO_MARK, dotted8, numbered } from './sources.js';
import { addYears, Rng } from './values.js';

export function codesUnder(src: Sources, prefixes: readonly string[]): LigieCode[] {
  return src.ligie.filter((c) => prefixes.some((p) => c.code10.startsWith(p)));
}

/** Codes whose own text can name a product: fits PRODUCTO and is not a residual "Los demás". */
export function namedProducts(codes: readonly LigieCode[]): LigieCode[] {
  return codes.filter((c) => charCount(c.text) <= 300 && !/^(los|las) demás/i.test(c.text));
}

export function cuotas2(src: Sources): RowOf<typeof cuotas2Set>[] {
  const rng = new Rng('cuotas2');
  const countries = ['CHN', 'KOR', 'TWN', 'UKR', 'RUS', 'IND', 'VNM', 'BRA', 'DEU', 'JPN'].map((k) => checkedCountry(src, k));
  if (!src.currencies.has('USD')) throw new Error('demo: USD missing from the currency catalog');
  const records: RowOf<typeof cuotas2Set>[] = [];
  let resolution = 0;
  for (const c of rng.sample(namedProducts(codesUnder(src, ['72', '73'])), 48)) {
    for (const country of rng.sample(countries, rng.int(1, 3))) {
      resolution++;
      const specific = rng.int(0, 1) === 1;
      const status = rng.pick(['VIGENTE', 'PROVISIONAL', 'DEFINITIVA']);
      const dof = rng.date(2015, 2024);
      const company = rng.int(0, 2) === 0 ? `Exportadora demo ${rng.int(1, 40)}` : 'Las demás';
      records.push({
        FRACCION: c.fraction,
        PRODUCTO: c.text,
        PAIS: country,
        DOF: dof,
        DOF2: rng.int(0, 3) === 0 ? `DEMO: modificación publicada el ${addYears(dof, 2)}` : null,
        EMPRESA: company,
        INCOTERM: rng.pick(src.incoterms),
        DOLARES: specific ? rng.decimal(0.05, 1.5, 4) : null,
        CLAVEMONEDA: specific ? 'USD' : null,
        CLAVEUM: specific ? '1' : null,
        PORCENTAJE: specific ? null : rng.decimal(5, 80, 2),
        DESCRIPCIONDOLARES: specific ? 'Dólares de los EUA por kilogramo' : null,
        NOTAS: DEMO_MARK,
        ESTATUS: status,
        NUMERORESOLUCION: resolution,
        RESOLUCION: `DEMO: resolución ${status === 'PROVISIONAL' ? 'preliminar' : 'final'} de la investigación antidumping n.º ${resolution}`,
        TIPOCUOTA: status === 'PROVISIONAL' ? 'PROVISIONAL' : 'DEFINITIVA',
        PRECIOREFERENCIA: rng.int(0, 4) === 0 ? rng.decimal(300, 1500, 4) : null,
        FECHAINICIO: dof,
        FECHAFIN: addYears(dof, 5),
        OBSERVACIONES: `${DEMO_MARK} Fracción y país reales; cuota, empresa y resolución inventadas.`,
        NICO: c.nico,
      });
    }
  }
  return numbered(records, 'SYSID');
}

export function preciosEstimados2(src: Sources): RowOf<typeof preciosEstimados2Set>[] {
  const rng = new Rng('precios-estimados2');
  const records: RowOf<typeof preciosEstimados2Set>[] = [];
  for (const c of rng.sample(namedProducts(codesUnder(src, ['61', '62', '64', '72', '73'])), 150)) {
    const dof = rng.date(2016, 2024);
    records.push({
      FRACCION: c.fraction,
      PRODUCTO: c.text,
      DETALLE: 'DEMO: precio de demostración por unidad de la tarifa.',
      CLAVEUM: c.unit,
      DESCRIPCIONUM: src.unitNames.get(c.unit) ?? null,
      PRECIO: c.unit === '1' ? rng.decimal(0.5, 60, 4) : rng.decimal(1, 250, 4),
      CLAVEMONEDA: 'USD',
      DOF: dof,
      VIGENCIA: rng.int(0, 2) === 0 ? addYears(dof, 2) : null,
      NOTAS: DEMO_MARK,
      NICO: c.nico,
    });
  }
  return numbered(records, 'SYSID');
}

/** Made-up makes: a real-looking brand name would read as a fact about that company. */
export const DEMO_MAKES: readonly { name: string; type: 'AUTOMOVIL' | 'CAMION' | 'MOTOCICLETA'; heading: string }[] = [
  { name: 'DEMO AUTOS AZTECA', type: 'AUTOMOVIL', heading: '8703' },
  { name: 'DEMO MOTORES DEL BAJÍO', type: 'AUTOMOVIL', heading: '8703' },
  { name: 'DEMO VEHÍCULOS PACÍFICO', type: 'AUTOMOVIL', heading: '8703' },
  { name: 'DEMO AUTOMOTRIZ DEL NORTE', type: 'AUTOMOVIL', heading: '8703' },
  { name: 'DEMO CAMIONES SIERRA', type: 'CAMION', heading: '8704' },
  { name: 'DEMO CARGA PESADA', type: 'CAMION', heading: '8704' },
  { name: 'DEMO UTILITARIOS DEL GOLFO', type: 'CAMION', heading: '8704' },
  { name: 'DEMO MOTOS CENTRO', type: 'MOTOCICLETA', heading: '8711' },
  { name: 'DEMO DOS RUEDAS', type: 'MOTOCICLETA', heading: '8711' },
  { name: 'DEMO MOTO PENINSULAR', type: 'MOTOCICLETA', heading: '8711' },
];

export const DEMO_MODELS: Readonly<Record<string, readonly string[]>> = {
  AUTOMOVIL: ['Sedán 1.6 L', 'Hatchback 1.2 L', 'SUV 2.0 L', 'Híbrido 1.8 L', 'Eléctrico 60 kWh'],
  CAMION: ['Pick-up 2.7 L', 'Chasis cabina 4.5 t', 'Tractocamión 13 L', 'Van de carga 2.2 L'],
  MOTOCICLETA: ['Trabajo 125 cc', 'Deportiva 650 cc', 'Scooter 150 cc', 'Doble propósito 250 cc'],
};

export const VEHICLE_TYPE_KEYS: Readonly<Record<string, string>> = { AUTOMOVIL: 'A', CAMION: 'C', MOTOCICLETA: 'M' };

export function vehicleMakes(src: Sources): { marcas: RowOf<typeof vehiculosMarcasSet>[]; modelos: RowOf<typeof vehiculosModelosSet>[] } {
  const rng = new Rng('vehiculos');
  const marcas: RowOf<typeof vehiculosMarcasSet>[] = [];
  const modelos: RowOf<typeof vehiculosModelosSet>[] = [];
  DEMO_MAKES.forEach((make, i) => {
    const key = `D${String(i + 1).padStart(4, '0')}`;
    const codes = rng.sample(codesUnder(src, [make.heading]), rng.int(3, 6));
    for (const c of codes) marcas.push({ FRACCION: c.fraction, CLAVEMARCA: key, MARCA: make.name, TIPO: make.type, NICO: c.nico });
    for (const model of DEMO_MODELS[make.type] ?? []) {
      const c = rng.pick(codes);
      const [low, high] = make.type === 'MOTOCICLETA' ? [1500, 15000] : make.type === 'CAMION' ? [18000, 120000] : [12000, 60000];
      const baseCents = rng.int(low * 100, high * 100);
      for (let year = 2023; year <= 2025; year++) {
        if (rng.int(0, 3) === 0) continue;
        // The same model costs a little more each model year.
        const cents = Math.round((baseCents * (100 + 3 * (year - 2023))) / 100);
        modelos.push({
          FRACCION: c.fraction,
          CLAVEMARCA: key,
          MARCA: make.name,
          MODELO: `DEMO ${model}`,
          ANIOMODELO: year,
          TIPOVEHICULO: VEHICLE_TYPE_KEYS[make.type] ?? null,
          PRECIOESTIMADO: `${Math.floor(cents / 100)}.${String(cents % 100).padStart(2, '0')}`,
          CLAVEMONEDA: 'USD',
          DOF: rng.date(year - 1, year),
          NICO: c.nico,
        });
      }
    }
  });
  return { marcas: numbered(marcas, 'SYSID'), modelos: numbered(modelos, 'SYSID') };
}

/** IEPS categories by heading, after the Ley del IEPS art. 2; the records themselves are demo. */
export const IEPS_RULES: readonly {
  prefix: string;
  category: string;
  type: string;
  rate: string | null;
  quota: string | null;
  unit: string | null;
  ground: string;
}[] = [
  { prefix: '2202', category: 'Bebidas saborizadas', type: 'CUOTA', rate: null, quota: '1.6451', unit: 'Litro', ground: 'Ley del IEPS, art. 2, fracción I, inciso G)' },
  { prefix: '2203', category: 'Cerveza', type: 'AD VALOREM', rate: '26.50', quota: null, unit: null, ground: 'Ley del IEPS, art. 2, fracción I, inciso A), numeral 1' },
  { prefix: '2204', category: 'Vinos', type: 'AD VALOREM', rate: '26.50', quota: null, unit: null, ground: 'Ley del IEPS, art. 2, fracción I, inciso A), numeral 1' },
  { prefix: '2205', category: 'Vermut y vinos aromatizados', type: 'AD VALOREM', rate: '30.00', quota: null, unit: null, ground: 'Ley del IEPS, art. 2, fracción I, inciso A), numeral 2' },
  { prefix: '2206', category: 'Otras bebidas fermentadas', type: 'AD VALOREM', rate: '26.50', quota: null, unit: null, ground: 'Ley del IEPS, art. 2, fracción I, inciso A), numeral 1' },
  { prefix: '2208', category: 'Bebidas alcohólicas de más de 20° G.L.', type: 'AD VALOREM', rate: '53.00', quota: null, unit: null, ground: 'Ley del IEPS, art. 2, fracción I, inciso A), numeral 3' },
  { prefix: '2402', category: 'Cigarros y puros', type: 'MIXTO', rate: '160.00', quota: '0.6166', unit: 'Cigarro', ground: 'Ley del IEPS, art. 2, fracción I, inciso C)' },
  { prefix: '2403', category: 'Tabacos labrados', type: 'AD VALOREM', rate: '160.00', quota: null, unit: null, ground: 'Ley del IEPS, art. 2, fracción I, inciso C)' },
];

export function ieps(src: Sources): RowOf<typeof iepsSet>[] {
  const records: RowOf<typeof iepsSet>[] = [];
  for (const rule of IEPS_RULES) {
    for (const c of codesUnder(src, [rule.prefix])) {
      records.push({
        FRACCION_SIN_PUNTO: c.fraction,
        FRACCION_CON_PUNTO: dotted8(c.fraction),
        DESCRIPCION: c.text,
        CATEGORIA: rule.category,
        TIPO: rule.type,
        TASA: rule.rate,
        CUOTA: rule.quota,
        UNIDAD: rule.unit,
        FUNDAMENTO: rule.ground,
        DOF: null,
        NOTAS: `${DEMO_MARK} Categoría y tasa tomadas de la Ley del IEPS sin verificar su aplicación a esta fracción.`,
        NICO: c.nico,
      });
    }
  }
  return numbered(records, 'CONSECUTIVO', 'FRACCION_SIN_PUNTO');
}

export function reit(src: Sources): RowOf<typeof reitSet>[] {
  const rng = new Rng('reit');
  const permit = checkedPermit(src, 'IM');
  return numbered(
    rng.sample(codesUnder(src, ['61', '62', '64', '72', '73']), 80).map((c) => ({
      FRACCION: c.fraction,
      ARTICULO: `Decreto IMMEX, art. ${rng.pick(['4', '5'])}, fracc. ${rng.pick(['I', 'II', 'III'])}`,
      FUNDAMENTO: `${DEMO_MARK} Mercancía sensible del Anexo II del Decreto IMMEX (texto de demostración).`,
      ACUERDO: 'Decreto para el Fomento de la Industria Manufacturera, Maquiladora y de Servicios de Exportación',
      PERMISO: permit,
      DOF: rng.date(2015, 2024),
      DOCUMENTO: 'Autorización IMMEX para mercancías sensibles (demostración)',
      TEMPORALIDAD: rng.pick([6, 12, 18, 36]),
      TEMPORALIDADSERVICIO: rng.int(0, 1) === 0 ? rng.pick([6, 12]) : null,
      TEMPORALIDADCERTIFICADA: rng.int(0, 1) === 0 ? rng.pick([18, 36]) : null,
      NICO: c.nico,
    })),
    'SYSID',
  );
}

export const AGREEMENTS: readonly { key: string; name: string; partners: readonly string[] }[] = [
  { key: 'TIPAT', name: 'TIPAT (Asociación Transpacífico, CPTPP)', partners: ['AUS', 'BRN', 'CAN', 'CHL', 'JPN', 'MYS', 'NZL', 'PER', 'SGP', 'VNM'] },
  { key: 'TMEC', name: 'T-MEC (México, Estados Unidos y Canadá)', partners: ['USA', 'CAN'] },
  { key: 'TLCUEM', name: 'TLC México-Unión Europea', partners: ['EMU'] },
  { key: 'TLCAELC', name: 'TLC México-AELC', partners: ['ISL', 'NOR', 'CHE', 'LIE'] },
  { key: 'AAEMJ', name: 'Acuerdo de Asociación Económica México-Japón', partners: ['JPN'] },
  { key: 'TLCMI', name: 'TLC México-Israel', partners: ['ISR'] },
  { key: 'TLCMU', name: 'TLC México-Uruguay', partners: ['URY'] },
  { key: 'AP', name: 'Alianza del Pacífico', partners: ['COL', 'CHL', 'PER'] },
  { key: 'TLCCA', name: 'TLC México-Centroamérica', partners: ['CRI', 'SLV', 'GTM', 'HND', 'NIC'] },
  { key: 'TLCMP', name: 'TLC México-Panamá', partners: ['PAN'] },
];

export function fundamentosTlc(src: Sources): RowOf<typeof fundamentosTlcSet>[] {
  const rng = new Rng('fundamentos-tlc');
  const [tipat, tmec, ...others] = AGREEMENTS;
  if (!tipat || !tmec) throw new Error('demo: agreements list lost TIPAT or TMEC');
  const records: RowOf<typeof fundamentosTlcSet>[] = [];
  for (const c of rng.sample(src.ligie, 36)) {
    // TIPAT and T-MEC on every fraction, so that /fundamentos-tlc/tipat always has something to show.
    for (const a of [tipat, tmec, ...rng.sample(others, rng.int(1, 4))]) {
      records.push({
        FRACCION: c.fraction,
        PAIS: checkedCountry(src, rng.pick(a.partners)),
        TLC: a.name,
        FUNDAMENTO:
          `${DEMO_MARK} Decreto por el que se establece la tasa aplicable del Impuesto General de Importación ` +
          `para las mercancías originarias del ${a.name} (texto de demostración).`,
        FUNDAMENTO2: a.key,
        TASATXT: rng.pick(['Ex.', 'Ex.', 'Ex.', '2.5%', '5%', '10%', 'EXCL']),
        DOF: rng.date(2018, 2024),
        NOTAS: DEMO_MARK,
        NICO: c.nico,
      });
    }
  }
  return numbered(records, 'SYSID');
}
