/**
 * What an invoice line says besides the goods: materials, genders, sleeves, colours, sizes, units,
 * packaging and model or brand words ("PLAYERA MANGA CORTA CABALLERO 100% ALGODON TALLA M"). Such
 * words still order the lines that name the goods (cotton before synthetic T-shirts), but a line
 * matching them without the goods never outranks one that names the goods.
 */
import { fold, stem } from './analysis.js';

/** Units, sizes and counts: they say how much, never what (left out of the query). */
const QUANTITY_WORDS = new Set(
  (
    'kg kgs kilo kilos kilogramo kilogramos g gr grs gramo gramos lb lbs libra libras oz onza onzas ml l lt lts litro litros ' +
    'cm mm mts metro metros pulg pulgada pulgadas inch inches pies ft w v hp kva mah gb tb cc pza pzas pz pieza piezas pc pcs ' +
    'unidad unidades und dz docena docenas talla tallas size ch xl xxl xs unitalla paq no num ' +
    // Spanish number words count, as figures do ("REFRIGERADOR DE DOS PUERTAS").
    'dos tres cuatro cinco seis siete ocho nueve diez once doce quince veinte cien'
  ).split(' '),
);

/** Words that qualify the goods: materials, genders, garment parts, colours, packaging, grades, models. */
const ATTRIBUTE_WORDS = (
  'algodon poliester nylon nailon elastano spandex lycra acrilico lana seda lino viscosa rayon cotton polyester acrylic ' +
  'acero inoxidable hierro aluminio cobre laton plastico plastica sintetico sintetica metal metalico metalica caucho hule goma ' +
  'piel cuero madera vidrio ceramica porcelana steel stainless iron aluminum aluminium copper brass plastic leather wood glass ' +
  'hombre caballero dama mujer nino nina unisex adulto men mens women womens ladies lady boys girls kids unisex ' +
  'manga corta larga cuello redondo tejido plano punto sleeve short long woven knit knitted ' +
  'blanco negro azul gris dorado plateado color colores white black blue grey gray navy ' +
  'caja bolsa saco paquete rollo cubeta tambor granel juego set kit box bag pack drum carton case ' +
  'garrafa botella frasco bidon galon envase estuche blister bottle jar jug ' +
  'tipo marca modelo estilo style model brand grado calidad premium importado original'
)
  .split(' ')
  .map(stem);
const ATTRIBUTES = new Set(ATTRIBUTE_WORDS);

/** Words that open an invoice line without naming the goods ("JUEGO DE SABANAS", "SET OF 6 KNIVES"). */
const SET_WORDS = new Set(['juego', 'set', 'kit', 'paquete', 'pack']);

export const isQuantityWord = (word: string): boolean => QUANTITY_WORDS.has(fold(word)) || /\d/.test(word);

/**
 * Whether a typed word qualifies the goods rather than naming them. The first word of a line names
 * them ("CAJA DE CARTON", "BOLSA DE MANO"), unless it only says the goods come as a set.
 */
export function isAttribute(word: string, position: number): boolean {
  if (position === 0) return SET_WORDS.has(word);
  return ATTRIBUTES.has(stem(word));
}
