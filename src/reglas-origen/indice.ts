/**
 * A version's rules of origin as the service answers them: every agreement's file read once into
 * rules (src/reglas-origen/parse.ts) and kept with the store of its version (a version never changes
 * once loaded), then looked up by a fraction's 10-digit code.
 */
import type { ArchivoReglas, ReglasAcuerdo } from './archivos.js';
import type { Alternativa } from './parse.js';
import { leerConjunto, partidaDe } from './parse.js';

/** One rule of one set, ready to answer. */
export interface Regla {
  readonly acuerdo: string;
  readonly archivo: string;
  readonly conjunto: number;
  readonly encabezado: string;
  readonly descripcion: string | null;
  readonly parcial: boolean;
  readonly min: string;
  readonly max: string;
  readonly entrada: number;
  readonly mercancias: string | null;
  readonly texto: readonly string[];
  readonly alternativas: readonly Alternativa[];
  /** How many rules the set has: more than one, and an evaluation must say which (`entrada`). */
  readonly reglasDelConjunto: number;
}

export interface IndiceReglas {
  /** The agreements with rules, in the order they were loaded, with how many rule sets each. */
  readonly acuerdos: readonly { readonly acuerdo: string; readonly archivo: string; readonly conjuntos: number }[];
  readonly reglas: readonly Regla[];
}

/** Every rule of an agreement's file, set by set. */
function reglasDe(r: ReglasAcuerdo): Regla[] {
  return r.contenido.rule_sets.flatMap((set, conjunto) => {
    const leidas = leerConjunto(set.rules, { partida: partidaDe(set.min, set.max) });
    return leidas.map((l): Regla => ({
      acuerdo: r.acuerdo,
      archivo: r.archivo,
      conjunto,
      encabezado: set.heading,
      descripcion: set.subdivision ?? null,
      parcial: /^ex\b/i.test(set.heading.trim()),
      min: set.min,
      max: set.max,
      entrada: l.entrada,
      mercancias: l.mercancias,
      texto: l.texto,
      alternativas: l.alternativas,
      reglasDelConjunto: leidas.length,
    }));
  });
}

export function indiceDe(reglas: readonly ReglasAcuerdo[]): IndiceReglas {
  return {
    acuerdos: reglas.map((r) => ({ acuerdo: r.acuerdo, archivo: r.archivo, conjuntos: r.contenido.rule_sets.length })),
    reglas: reglas.flatMap(reglasDe),
  };
}

/** The rules that apply to a 10-digit code (8 digits + NICO, or + `00`), in file and set order. */
export function reglasDeCodigo(indice: IndiceReglas, codigo: string, acuerdos?: ReadonlySet<string>): Regla[] {
  return indice.reglas.filter((r) => r.min <= codigo && codigo <= r.max && (acuerdos === undefined || acuerdos.has(r.acuerdo)));
}

/** What a store can give: its version's rules (Store.reglasOrigen) and the hash of what it holds. */
interface ConReglas {
  reglasOrigen(): Promise<ReglasAcuerdo[]>;
  dataset(): Promise<{ readonly hash: string } | null>;
}

/** Per store, per content hash: a PostgreSQL store keeps its object while a load switches its tables. */
const porStore = new WeakMap<object, Map<string, Promise<IndiceReglas>>>();

/**
 * The rules read, by the content hash of the version they belong to, whichever store asked first: the
 * hash covers the rules' table (src/store/core.ts), so two stores of the same content hold the same
 * rules, and a process that opens the same version again (a reload, another copy of the same file) does
 * not read 2.5 MB of rules again (about 0.2 s of CPU each time). The latest few are kept.
 */
const porHash = new Map<string, Promise<IndiceReglas>>();
const HASHES_KEPT = 4;

/**
 * The rules of a store's version, read and parsed once per content (a version never changes; a new
 * load has another hash); a failure is not remembered. The one kept per store is the latest.
 */
export async function indiceDeStore(store: ConReglas): Promise<IndiceReglas> {
  const hash = (await store.dataset())?.hash ?? '';
  let byHash = porStore.get(store);
  if (!byHash) {
    byHash = new Map();
    porStore.set(store, byHash);
  }
  let known = byHash.get(hash);
  if (!known) {
    byHash.clear();
    known = hash === '' ? store.reglasOrigen().then(indiceDe) : compartido(hash, store);
    byHash.set(hash, known);
    const kept = byHash;
    known.catch(() => kept.delete(hash));
  }
  return known;
}

/** The rules of the content `hash`, read from `store` unless a store of the same content already did. */
function compartido(hash: string, store: ConReglas): Promise<IndiceReglas> {
  let known = porHash.get(hash);
  if (known) {
    porHash.delete(hash); // the latest used goes last
  } else {
    known = store.reglasOrigen().then(indiceDe);
    const made = known;
    made.catch(() => porHash.get(hash) === made && porHash.delete(hash));
  }
  porHash.set(hash, known);
  while (porHash.size > HASHES_KEPT) porHash.delete(porHash.keys().next().value!);
  return known;
}

/** The parser's coverage of a file: entries read without `otro`, of how many, and the texts of the others. */
export function coberturaDe(archivo: ArchivoReglas): { entradas: number; leidas: number; otros: string[] } {
  let entradas = 0;
  let leidas = 0;
  const otros: string[] = [];
  for (const set of archivo.rule_sets) {
    for (const regla of leerConjunto(set.rules, { partida: partidaDe(set.min, set.max) })) {
      regla.leidas.forEach((ok, i) => {
        entradas++;
        if (ok) leidas++;
        else otros.push(regla.texto[i]!);
      });
    }
  }
  return { entradas, leidas, otros };
}
