/**
 * The parser's coverage (docs/reglas-origen.md): per shipped file (or the files named), the share of
 * rule entries read without `otro`; with --otro, the texts of the entries that stay `otro`, most
 * frequent form first. `npm run reglas-origen -- [--otro] [file.json …]`.
 */
import { readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { SHIPPED, parseArchivo, shippedDir } from '../src/reglas-origen/archivos.js';
import { coberturaDe } from '../src/reglas-origen/indice.js';

const args = process.argv.slice(2);
const showOtro = args.includes('--otro');
const files = args.filter((a) => !a.startsWith('--'));
const paths = files.length > 0 ? files : SHIPPED.map((s) => join(shippedDir, s.archivo));
for (const path of paths) {
  const archivo = basename(path);
  const cobertura = coberturaDe(parseArchivo(archivo, readFileSync(path, 'utf8')));
  const share = ((100 * cobertura.leidas) / cobertura.entradas).toFixed(1);
  console.log(`${archivo}: ${cobertura.leidas} of ${cobertura.entradas} entries read without otro (${share} %)`);
  if (!showOtro) continue;
  const forms = new Map<string, number>();
  for (const t of cobertura.otros) {
    const form = t.replace(/\d+(\.\d+)*/g, '#');
    forms.set(form, (forms.get(form) ?? 0) + 1);
  }
  for (const [form, n] of [...forms].sort((a, b) => b[1] - a[1])) console.log(`  ${n}\t${form}`);
}
