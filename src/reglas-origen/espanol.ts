/**
 * The project's own Spanish reading of a rule's structure (`texto_es`): written from `alternativas`,
 * never a translation of the agreement's text, and marked as the project's wherever it is shown. It
 * names the good's own chapter, heading, subheading or fraction, so it is written for a fraction.
 */
import { dotted } from '../fraccion.js';
import type { Alternativa, Codigo, Metodo, Requisito } from './parse.js';

const LEVEL_NAMES: Readonly<Record<number, readonly [string, string]>> = {
  2: ['el capítulo', 'los capítulos'],
  4: ['la partida', 'las partidas'],
  6: ['la subpartida', 'las subpartidas'],
  8: ['la fracción', 'las fracciones'],
};

/** A code as people write it: 48, 4823, 4823.20, 4823.20.01. */
export function codigoEscrito(code: string): string {
  return code.length === 6 || code.length === 8 ? dotted(code) : code;
}

const lengthOf = (c: Codigo): number => (typeof c === 'string' ? c : c.desde).length;

/** "la subpartida 4805.40", "las partidas 5106 a 5113", in the order given, grouped by level where they follow each other. */
export function codigosEscritos(codes: readonly Codigo[]): string {
  const parts = codes.map((c) => {
    const [one, many] = LEVEL_NAMES[lengthOf(c)] ?? ['el código', 'los códigos'];
    return typeof c === 'string' ? `${one} ${codigoEscrito(c)}` : `${many} ${codigoEscrito(c.desde)} a ${codigoEscrito(c.hasta)}`;
  });
  return lista(parts);
}

function lista(parts: readonly string[]): string {
  if (parts.length <= 1) return parts[0] ?? '';
  return `${parts.slice(0, -1).join(', ')} y ${parts.at(-1)!}`;
}

const CAMBIO: Readonly<Record<string, readonly [string, number, string, string]>> = {
  cambio_capitulo: ['Cambio de capítulo', 2, 'un capítulo distinto del', 'el'],
  cambio_partida: ['Cambio de partida', 4, 'una partida distinta de la', 'la'],
  cambio_subpartida: ['Cambio de subpartida', 6, 'una subpartida distinta de la', 'la'],
  cambio_fraccion: ['Cambio de fracción', 8, 'una fracción distinta de la', 'la'],
};

const METODOS: Readonly<Record<Metodo, string>> = {
  aumento: 'el método de aumento (valor de los materiales originarios entre el valor de transacción)',
  reduccion: 'el método de reducción (valor de transacción menos el de los materiales no originarios, entre el valor de transacción)',
  valor_enfocado: 'el método de valor enfocado',
  costo_neto: 'el método de costo neto (costo neto menos el valor de los materiales no originarios, entre el costo neto)',
  valor_transaccion: 'el método de valor de transacción (valor de transacción menos el de los materiales no originarios, entre el valor de transacción)',
};

/** One requirement in Spanish, for a good of `codigo` (8 or 10 digits). */
export function requisitoEnEspanol(r: Requisito, codigo: string): string {
  switch (r.tipo) {
    case 'cambio_capitulo':
    case 'cambio_partida':
    case 'cambio_subpartida':
    case 'cambio_fraccion': {
      const [name, length, other] = CAMBIO[r.tipo]!;
      let text = `${name}: los materiales no originarios se clasifican en ${other} ${codigoEscrito(codigo.slice(0, length))}`;
      if (r.desde !== null) text += ` y todos provienen de ${codigosEscritos(r.desde)}`;
      if (r.excepto.length > 0) text += `, salvo los de ${codigosEscritos(r.excepto)}, que deben ser originarios`;
      return `${text}.`;
    }
    case 'contenido_regional': {
      const only = r.materiales === null ? '' : `, contando sólo los materiales no originarios de ${codigosEscritos(r.materiales)}`;
      return `Contenido regional de al menos ${r.minimo} % por ${METODOS[r.metodo]}${only}.`;
    }
    case 'valor_max_no_originarios': {
      const which = r.materiales === null ? 'los materiales no originarios' : `los materiales no originarios de ${codigosEscritos(r.materiales)}`;
      const base = r.base === 'precio_franco_fabrica' ? 'del precio franco fábrica del producto' : 'del valor de la mercancía';
      if (r.maximo !== '0') return `El valor de ${which} no excede del ${r.maximo} % ${base}.`;
      return r.materiales === null
        ? 'Todos los materiales utilizados deben ser originarios.'
        : `Los materiales de ${codigosEscritos(r.materiales)} utilizados deben ser originarios (ninguno no originario).`;
    }
    case 'sin_cambio':
      return 'No se requiere cambio de clasificación arancelaria.';
    case 'totalmente_obtenido':
      return r.materiales === null
        ? 'La mercancía es totalmente obtenida en el territorio de las Partes.'
        : `Los materiales de ${codigosEscritos(r.materiales)} utilizados son totalmente obtenidos.`;
    case 'otro':
      return `Otra condición, que el servicio no verifica (texto del acuerdo, en inglés o como se publicó): «${r.texto}».`;
  }
}

/** The rule's alternatives in Spanish: one, or "una de estas opciones: 1) … 2) …". */
export function reglaEnEspanol(alternativas: readonly Alternativa[], codigo: string): string {
  const alternative = (a: Alternativa): string => a.requisitos.map((r) => requisitoEnEspanol(r, codigo)).join(' Además: ');
  if (alternativas.length === 1) return alternative(alternativas[0]!);
  return `Basta cumplir una de estas opciones: ${alternativas.map((a, i) => `${i + 1}) ${alternative(a)}`).join(' ')}`;
}
