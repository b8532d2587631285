/** docs/operations.md names every configuration variable with its real default: the reference cannot drift from the schema. */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { ConfigSchema } from '../src/config.js';

const doc = readFileSync(fileURLToPath(new URL('../../docs/operations.md', import.meta.url)), 'utf8');

test('every variable of the configuration is in docs/operations.md, with its default', () => {
  for (const [name, schema] of Object.entries(ConfigSchema.properties)) {
    const { default: value } = schema as { default: unknown };
    const shown = value === '' ? '*(empty)*' : `\`${String(value)}\``;
    assert.ok(doc.includes(`| \`${name}\` | ${shown} |`), `${name} with its default ${shown}`);
  }
});
