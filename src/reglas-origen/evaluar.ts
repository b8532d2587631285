/**
 * A bill of materials held against a rule's requirements (../shared/spec/reglas-origen.md, "API"):
 * each requirement `cumple`, `no_cumple` or `no_determinable` with its reason in Spanish, the
 * materials that fail it (their index in the request's list) and the percentage computed, exact
 * (decimal.js; shown with 2 decimals, half-up). What is missing to decide (a value, a material's code
 * precise enough, the user's word on a process) is named, never assumed. Pure.
 */
import { Decimal } from 'decimal.js';
import type { Alternativa, Codigo, Requisito } from './parse.js';
import { codigoEscrito, codigosEscritos } from './espanol.js';

export const RESULTADOS = ['cumple', 'no_cumple', 'no_determinable'] as const;
export type Resultado = (typeof RESULTADOS)[number];

/** A material of the bill: its code (2 to 10 digits), whether it is originating, its value. */
export interface Material {
  readonly codigo: string;
  readonly originario: boolean;
  readonly valor: Decimal;
}

/** The product's values the formulas use, each given or not. */
export interface Valores {
  readonly valor_transaccion?: Decimal | undefined;
  readonly precio_franco_fabrica?: Decimal | undefined;
  readonly costo_neto?: Decimal | undefined;
}

export interface Hechos {
  /** The good's code: 8 digits, or 10 (with its NICO). */
  readonly codigo: string;
  readonly valores: Valores;
  /** The user's word that the good is wholly obtained; undefined when not given. */
  readonly totalmenteObtenido: boolean | undefined;
  readonly materiales: readonly Material[];
}

export interface RequisitoEvaluado {
  readonly resultado: Resultado;
  readonly motivo: string;
  /** Indexes in `materiales` of the materials that make it fail (or that could not be placed). */
  readonly materiales_que_fallan: number[];
  /** The percentage computed, 2 decimals half-up; null where none was. */
  readonly valor: string | null;
  /** What would let it be decided: a value, a material's code, the user's word. */
  readonly falta: string[];
}

/** Whether a code of the bill lies under a rule's code: yes, no, or cannot tell (the material's code is shorter). */
type Bajo = 'si' | 'no' | 'quiza';

export function bajoCodigo(material: string, codigo: Codigo): Bajo {
  const from = typeof codigo === 'string' ? codigo : codigo.desde;
  const to = typeof codigo === 'string' ? codigo : codigo.hasta;
  const n = from.length;
  if (material.length >= n) {
    const p = material.slice(0, n);
    return from <= p && p <= to ? 'si' : 'no';
  }
  const k = material.length;
  return from.slice(0, k) <= material && material <= to.slice(0, k) ? 'quiza' : 'no';
}

function bajoAlguno(material: string, codigos: readonly Codigo[]): Bajo {
  const each = codigos.map((c) => bajoCodigo(material, c));
  if (each.includes('si')) return 'si';
  return each.includes('quiza') ? 'quiza' : 'no';
}

const pct = (value: Decimal): string => value.toDecimalPlaces(2, Decimal.ROUND_HALF_UP).toFixed(2);
const cumple = (motivo: string, valor: string | null = null): RequisitoEvaluado => ({
  resultado: 'cumple',
  motivo,
  materiales_que_fallan: [],
  valor,
  falta: [],
});
const indices = (list: readonly number[]): string => list.map((i) => `#${i}`).join(', ');

const LEVEL = {
  cambio_capitulo: [2, 'capítulo'],
  cambio_partida: [4, 'partida'],
  cambio_subpartida: [6, 'subpartida'],
  cambio_fraccion: [8, 'fracción'],
} as const;

function evaluarCambio(r: Extract<Requisito, { excepto: unknown }>, hechos: Hechos): RequisitoEvaluado {
  const [length, name] = LEVEL[r.tipo];
  const own = hechos.codigo.slice(0, length);
  const failing = new Set<number>();
  const unsure = new Set<number>();
  const reasons: string[] = [];
  hechos.materiales.forEach((m, i) => {
    if (m.originario) return;
    const same = bajoCodigo(m.codigo, own);
    if (same === 'si') {
      failing.add(i);
      reasons.push(`el material #${i} (${codigoEscrito(m.codigo)}) no originario es de la misma ${name} ${codigoEscrito(own)}`);
    } else if (same === 'quiza') unsure.add(i);
    const excepted = r.excepto.length === 0 ? 'no' : bajoAlguno(m.codigo, r.excepto);
    if (excepted === 'si') {
      failing.add(i);
      reasons.push(`el material #${i} (${codigoEscrito(m.codigo)}) no originario es de ${codigosEscritos(r.excepto)}, que la regla excluye`);
    } else if (excepted === 'quiza') unsure.add(i);
    if (r.desde !== null) {
      const from = bajoAlguno(m.codigo, r.desde);
      if (from === 'no') {
        failing.add(i);
        reasons.push(`el material #${i} (${codigoEscrito(m.codigo)}) no originario no proviene de ${codigosEscritos(r.desde)}`);
      } else if (from === 'quiza') unsure.add(i);
    }
  });
  if (failing.size > 0) {
    return {
      resultado: 'no_cumple',
      motivo: `No hay cambio de ${name}: ${reasons.join('; ')}.`,
      materiales_que_fallan: [...failing].sort((a, b) => a - b),
      valor: null,
      falta: [],
    };
  }
  if (unsure.size > 0) {
    const list = [...unsure].sort((a, b) => a - b);
    return {
      resultado: 'no_determinable',
      motivo: `No se puede saber si los materiales ${indices(list)} cambian de ${name}: su fracción tiene menos dígitos de los necesarios.`,
      materiales_que_fallan: list,
      valor: null,
      falta: list.map((i) => `materiales[${i}].fraccion con al menos ${Math.max(length, 2)} dígitos`),
    };
  }
  return cumple(
    `Todos los materiales no originarios se clasifican en otra ${name} que la ${codigoEscrito(own)}${r.excepto.length > 0 ? ' y ninguno en los códigos excluidos' : ''}.`,
  );
}

/** The non-originating materials (under `codigos` when given): their indexes, value, and those that cannot be placed. */
function noOriginarios(hechos: Hechos, codigos: readonly Codigo[] | null): { usados: number[]; valor: Decimal; dudosos: number[] } {
  const usados: number[] = [];
  const dudosos: number[] = [];
  let valor = new Decimal(0);
  hechos.materiales.forEach((m, i) => {
    if (m.originario) return;
    const under = codigos === null ? 'si' : bajoAlguno(m.codigo, codigos);
    if (under === 'quiza') dudosos.push(i);
    if (under !== 'si') return;
    usados.push(i);
    valor = valor.plus(m.valor);
  });
  return { usados, valor, dudosos };
}

const falta = (field: string, why: string): RequisitoEvaluado => ({
  resultado: 'no_determinable',
  motivo: `Falta ${why} (valores.${field}), que la fórmula necesita.`,
  materiales_que_fallan: [],
  valor: null,
  falta: [`valores.${field}`],
});

function dudoso(dudosos: readonly number[], codigos: readonly Codigo[]): RequisitoEvaluado {
  return {
    resultado: 'no_determinable',
    motivo: `No se puede saber si los materiales ${indices(dudosos)} son de ${codigosEscritos(codigos)}: su fracción tiene menos dígitos de los necesarios.`,
    materiales_que_fallan: [...dudosos],
    valor: null,
    falta: dudosos.map((i) => `materiales[${i}].fraccion con más dígitos`),
  };
}

function evaluarContenido(r: Extract<Requisito, { tipo: 'contenido_regional' }>, hechos: Hechos): RequisitoEvaluado {
  const { valores } = hechos;
  const base = r.metodo === 'costo_neto' ? valores.costo_neto : valores.valor_transaccion;
  const field = r.metodo === 'costo_neto' ? 'costo_neto' : 'valor_transaccion';
  if (base === undefined) return falta(field, r.metodo === 'costo_neto' ? 'el costo neto' : 'el valor de transacción');
  if (base.isZero()) return { ...falta(field, 'un valor mayor que cero'), motivo: `valores.${field} es 0: el porcentaje no se puede calcular.` };
  let numerator: Decimal;
  let counted: number[];
  if (r.metodo === 'aumento') {
    counted = hechos.materiales.flatMap((m, i) => (m.originario ? [i] : []));
    numerator = counted.reduce((sum, i) => sum.plus(hechos.materiales[i]!.valor), new Decimal(0));
  } else {
    const vmn = noOriginarios(hechos, r.metodo === 'valor_enfocado' ? r.materiales : null);
    if (vmn.dudosos.length > 0 && r.materiales !== null) return dudoso(vmn.dudosos, r.materiales);
    counted = vmn.usados;
    numerator = base.minus(vmn.valor);
  }
  const exact = numerator.div(base).times(100);
  const valor = pct(exact);
  const formula: Record<string, string> = {
    aumento: 'VMO / VT × 100',
    reduccion: '(VT − VMN) / VT × 100',
    valor_enfocado: '(VT − VMN de los materiales señalados) / VT × 100',
    valor_transaccion: '(VT − VMN) / VT × 100',
    costo_neto: '(CN − VMN) / CN × 100',
  };
  if (exact.gte(r.minimo)) return cumple(`Contenido regional ${valor} % (${formula[r.metodo]!}), al menos el ${r.minimo} % exigido.`, valor);
  return {
    resultado: 'no_cumple',
    motivo: `Contenido regional ${valor} % (${formula[r.metodo]!}), menos del ${r.minimo} % exigido.`,
    materiales_que_fallan: r.metodo === 'aumento' ? hechos.materiales.flatMap((m, i) => (m.originario ? [] : [i])) : counted,
    valor,
    falta: [],
  };
}

function evaluarMaximo(r: Extract<Requisito, { tipo: 'valor_max_no_originarios' }>, hechos: Hechos): RequisitoEvaluado {
  const field = r.base === 'precio_franco_fabrica' ? 'precio_franco_fabrica' : 'valor_transaccion';
  const base = hechos.valores[field];
  const vmn = noOriginarios(hechos, r.materiales);
  if (vmn.dudosos.length > 0 && r.materiales !== null) return dudoso(vmn.dudosos, r.materiales);
  // Nothing non-originating to count is 0 % of any base: no value is needed to say so (a limit of 0 % is met only so).
  if (base === undefined && vmn.valor.isZero()) {
    const which = r.materiales === null ? 'materiales no originarios' : `materiales no originarios de ${codigosEscritos(r.materiales)}`;
    return cumple(`No hay ${which} con valor que contar: el ${r.maximo} % permitido se cumple sin importar la base.`, null);
  }
  if (base === undefined)
    return falta(field, r.base === 'precio_franco_fabrica' ? 'el precio franco fábrica' : 'el valor de la mercancía (valor de transacción)');
  if (base.isZero()) {
    if (vmn.valor.isZero()) return cumple('No hay materiales no originarios con valor que contar.', null);
    return { ...falta(field, 'un valor mayor que cero'), motivo: `valores.${field} es 0: el porcentaje no se puede calcular.` };
  }
  const exact = vmn.valor.div(base).times(100);
  const valor = pct(exact);
  const which = r.materiales === null ? 'los materiales no originarios' : `los materiales no originarios de ${codigosEscritos(r.materiales)}`;
  const of = r.base === 'precio_franco_fabrica' ? 'del precio franco fábrica' : 'del valor de la mercancía';
  if (exact.lte(r.maximo)) return cumple(`El valor de ${which} es el ${valor} % ${of}, no más del ${r.maximo} % permitido.`, valor);
  return {
    resultado: 'no_cumple',
    motivo: `El valor de ${which} es el ${valor} % ${of}, más del ${r.maximo} % permitido.`,
    materiales_que_fallan: vmn.usados,
    valor,
    falta: [],
  };
}

function evaluarObtenido(r: Extract<Requisito, { tipo: 'totalmente_obtenido' }>, hechos: Hechos): RequisitoEvaluado {
  if (r.materiales !== null) {
    const vmn = noOriginarios(hechos, r.materiales);
    if (vmn.usados.length > 0) {
      return {
        resultado: 'no_cumple',
        motivo: `Los materiales ${indices(vmn.usados)} de ${codigosEscritos(r.materiales)} no son originarios, y la regla pide que sean totalmente obtenidos.`,
        materiales_que_fallan: vmn.usados,
        valor: null,
        falta: [],
      };
    }
    if (vmn.dudosos.length > 0) return dudoso(vmn.dudosos, r.materiales);
  }
  const what = r.materiales === null ? 'la mercancía' : `los materiales de ${codigosEscritos(r.materiales)}`;
  if (hechos.totalmenteObtenido === true) return cumple(`Según la declaración del usuario (totalmente_obtenido), ${what} es totalmente obtenida.`);
  if (hechos.totalmenteObtenido === false && r.materiales === null) {
    return {
      resultado: 'no_cumple',
      motivo: 'El usuario declara que la mercancía no es totalmente obtenida.',
      materiales_que_fallan: [],
      valor: null,
      falta: [],
    };
  }
  return {
    resultado: 'no_determinable',
    motivo: `Falta la declaración del usuario de que ${what} es totalmente obtenida (totalmente_obtenido).`,
    materiales_que_fallan: [],
    valor: null,
    falta: ['totalmente_obtenido'],
  };
}

export function evaluarRequisito(r: Requisito, hechos: Hechos): RequisitoEvaluado {
  switch (r.tipo) {
    case 'cambio_capitulo':
    case 'cambio_partida':
    case 'cambio_subpartida':
    case 'cambio_fraccion':
      return evaluarCambio(r, hechos);
    case 'contenido_regional':
      return evaluarContenido(r, hechos);
    case 'valor_max_no_originarios':
      return evaluarMaximo(r, hechos);
    case 'sin_cambio':
      return cumple('La regla no pide cambio de clasificación arancelaria.');
    case 'totalmente_obtenido':
      return evaluarObtenido(r, hechos);
    case 'otro':
      return {
        resultado: 'no_determinable',
        motivo: `El servicio no verifica esta condición; compruébela usted: «${r.texto}».`,
        materiales_que_fallan: [],
        valor: null,
        falta: ['la comprobación del usuario de la condición que el servicio no verifica'],
      };
  }
}

/** All cumple: cumple; one fails: no_cumple; otherwise no_determinable. */
export function todos(resultados: readonly Resultado[]): Resultado {
  if (resultados.includes('no_cumple')) return 'no_cumple';
  return resultados.every((r) => r === 'cumple') ? 'cumple' : 'no_determinable';
}

/** One cumple: cumple; all fail: no_cumple; otherwise no_determinable. */
export function alguno(resultados: readonly Resultado[]): Resultado {
  if (resultados.includes('cumple')) return 'cumple';
  return resultados.length > 0 && resultados.every((r) => r === 'no_cumple') ? 'no_cumple' : 'no_determinable';
}

export interface AlternativaEvaluada {
  readonly resultado: Resultado;
  readonly requisitos: (Requisito & RequisitoEvaluado)[];
}

export function evaluarAlternativas(alternativas: readonly Alternativa[], hechos: Hechos): { resultado: Resultado; alternativas: AlternativaEvaluada[] } {
  const evaluated = alternativas.map((a): AlternativaEvaluada => {
    const requisitos = a.requisitos.map((r) => ({ ...r, ...evaluarRequisito(r, hechos) }));
    return { resultado: todos(requisitos.map((r) => r.resultado)), requisitos };
  });
  return { resultado: alguno(evaluated.map((a) => a.resultado)), alternativas: evaluated };
}
