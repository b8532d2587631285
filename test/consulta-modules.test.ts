/**
 * The page's modules as the browser gets them (dist/src/consulta): each imports only modules of the page
 * itself, or a module the server shares with it (src/fraccion.ts, src/limites.ts), which imports nothing. The page may
 * use the server's types (`import type`, erased when compiled), never any other of its code.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { test } from 'node:test';

const PAGE = new URL('../src/consulta/', import.meta.url);

test("the page's compiled modules import nothing but the page's own modules", () => {
  const modules = readdirSync(PAGE).filter((name) => name.endsWith('.js'));
  assert.ok(modules.includes('contribuciones.js') && modules.includes('main.js'), modules.join(', '));
  for (const name of modules) {
    const source = readFileSync(new URL(name, PAGE), 'utf8');
    const imports = [...source.matchAll(/(?:\bfrom\s*|\bimport\s*\(?\s*)['"]([^'"]+)['"]/g)].map((m) => m[1]!);
    for (const specifier of imports) {
      assert.match(specifier, /^(\.\/[\w-]+|\.\.\/(?:fraccion|limites))\.js$/, `${name} imports ${specifier}`);
      assert.ok(existsSync(new URL(specifier, PAGE)), `${name} imports ${specifier}, which the page does not have`);
    }
  }
});

test('the modules the server shares with the page import nothing', () => {
  for (const [name, exported] of [
    ['fraccion.js', /export function dotted/],
    ['limites.js', /export const MAX_BATCH_BYTES/],
  ] as const) {
    const source = readFileSync(new URL(`../${name}`, PAGE), 'utf8');
    assert.match(source, exported);
    assert.doesNotMatch(source, /(?:\bfrom\s*|\bimport\s*\(?\s*)['"]/, `${name} imports something`);
  }
});
