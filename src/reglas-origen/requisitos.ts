/**
 * The structure a product-specific rule is read into (../shared/spec/reglas-origen.md, "Structure of
 * a rule"): alternatives (OR) of requirements (AND), each of one `tipo`; shared by the parser's parts,
 * the evaluation, the Spanish reading and the schemas.
 */

/** A code of 2, 4, 6 or 8 digits, or a range of codes of one length written as such in the text. */
export type Codigo = string | { desde: string; hasta: string };

export const CAMBIOS = ['cambio_capitulo', 'cambio_partida', 'cambio_subpartida', 'cambio_fraccion'] as const;
export type TipoCambio = (typeof CAMBIOS)[number];
export const METODOS = ['aumento', 'reduccion', 'valor_enfocado', 'costo_neto', 'valor_transaccion'] as const;
export type Metodo = (typeof METODOS)[number];
export const BASES = ['precio_franco_fabrica', 'valor_mercancia'] as const;
export type Base = (typeof BASES)[number];

/** The parser's structures are mutable arrays, as the schemas' types are; nothing changes them once read. */
export type Requisito =
  | { tipo: TipoCambio; excepto: Codigo[]; desde: Codigo[] | null }
  | { tipo: 'contenido_regional'; metodo: Metodo; minimo: string; materiales: Codigo[] | null }
  | { tipo: 'valor_max_no_originarios'; maximo: string; base: Base; materiales: Codigo[] | null }
  | { tipo: 'sin_cambio' }
  | { tipo: 'totalmente_obtenido'; materiales: Codigo[] | null }
  | { tipo: 'otro'; texto: string };

export interface Alternativa {
  requisitos: Requisito[];
}

/** What the set tells the parser about the goods: the heading of all its goods when they share one (for "the same heading as the product"). */
export interface Contexto {
  readonly partida: string | null;
}

/**
 * Where a rule names "the same heading as the product" and the set's goods span several headings,
 * the materials are those of the good's own heading: this stands for it until a fraction is asked
 * for (src/reglas-origen/indice.ts puts the heading of the fraction in its place).
 */
export const PARTIDA_DEL_PRODUCTO = 'partida_del_producto';

export const ownHeading = (ctx: Contexto): string => ctx.partida ?? PARTIDA_DEL_PRODUCTO;

export const otro = (texto: string): Requisito => ({ tipo: 'otro', texto });
