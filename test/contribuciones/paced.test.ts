/** The contributions' work paced over turns of the event loop gives exactly what it gives at once. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Answer } from '../../src/contribuciones/compute.js';
import { answerJson, paced } from '../../src/contribuciones/compute.js';

const answer = (lines: number): Answer =>
  ({
    fecha: '2024-06-03',
    pais_origen: 'USA',
    regimen: 'definitivo',
    partidas: Array.from({ length: lines }, (_, i) => ({ fraccion: `0101210${i % 10}`, nico: '00', descripcion: `"partidas":[] ${i}`, notas: ['ñ\u2028'] })),
    totales: { general: '10', mejor: '5' },
    advertencias: ['"partidas":[]'],
  }) as unknown as Answer;

describe('paced contributions', () => {
  test('the answer written a line at a time is JSON.stringify of it, for 0, 1 and 500 lines', async () => {
    for (const lines of [0, 1, 500]) {
      const whole = answer(lines);
      assert.equal(await paced(answerJson(whole)), JSON.stringify(whole), `${lines} lines`);
    }
  });

  test('paced work lets the event loop run other callbacks before it ends', async () => {
    let others = 0;
    const timer = setInterval(() => others++, 0);
    // Work that goes on until a timer has run, or for 10 s of wall time: paced work ends in a few turns
    // of the loop however busy the machine is; work that held the loop throughout runs out its 10 s.
    // (Work of a fixed 60 ms could end inside one slice when the process was not on a core for as long.)
    function* untilATimerRan(): Generator<void, string> {
      const until = performance.now() + 10_000;
      while (others === 0 && performance.now() < until) yield;
      return 'done';
    }
    try {
      assert.equal(await paced(untilATimerRan()), 'done');
    } finally {
      clearInterval(timer);
    }
    assert.ok(others > 0, 'a timer ran while the work was under way');
  });
});
