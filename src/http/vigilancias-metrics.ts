/** The watch lists' metrics for Prometheus: deliveries by outcome and the outbox by state. */
import { Gauge, Counter } from 'prom-client';
import type { Registry } from 'prom-client';
import type { VigilanciasService } from '../vigilancias/service.js';

/** Deliveries by outcome: attempts counted as they end, and the outbox's rows by state when scraped. */
export function registerVigilanciasMetrics(registry: Registry, service: VigilanciasService): void {
  const attempts = new Counter({
    name: 'vigilancias_intentos_total',
    help: 'Webhook delivery attempts by result: entregada (2xx), reintento (failed, tried again later), fallida (failed, no attempt left), desactivada (410 Gone)',
    labelNames: ['resultado'],
    registers: [registry],
  });
  for (const r of ['entregada', 'reintento', 'fallida', 'desactivada']) attempts.inc({ resultado: r }, 0);
  service.onAttempt((resultado) => attempts.inc({ resultado }));
  new Gauge({
    name: 'vigilancias_entregas',
    help: 'Webhook deliveries in the outbox by state: pendiente, entregada, fallida',
    labelNames: ['estado'],
    registers: [registry],
    async collect() {
      const counts: Record<string, number> = await service.counts().catch(() => ({}));
      for (const estado of ['pendiente', 'entregada', 'fallida']) this.set({ estado }, counts[estado] ?? 0);
    },
  });
}
