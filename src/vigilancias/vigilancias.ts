/**
 * Watch lists and their deliveries as the routes read and write them: every statement names the
 * user's account (src/store/accounts.ts), so that another user's watch list, or that of a removed
 * user of the same name, is as absent as one that never was.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import type { LegacyOwner } from '../store/accounts.js';
import { accountOf, closeAccount, closedFor } from '../store/accounts.js';
import type { WorkDb, WorkStatements } from '../store/work.js';
import type { EntregaRow, VigilanciaRow } from './tables.js';
import { vigilanciasDdl } from './tables.js';

/** A watch list as its owner wrote it, fractions already normalised. */
export interface VigilanciaInput {
  readonly nombre: string;
  readonly fracciones: readonly string[];
  readonly conjuntos: readonly string[];
  readonly url: string;
}

export interface Vigilancia extends VigilanciaInput {
  readonly id: string;
  readonly usuario: string;
  readonly cuenta: string | null;
  readonly secreto: string;
  readonly activa: boolean;
  readonly creada: number;
  readonly actualizada: number;
}

export interface Entrega {
  readonly id: string;
  readonly evento: string;
  readonly tipo: string;
  readonly estado: 'pendiente' | 'entregada' | 'fallida';
  readonly intentos: number;
  readonly ultimo_codigo: number | null;
  readonly ultimo_error: string | null;
  readonly creada: number;
  readonly siguiente_intento: number | null;
  readonly entregada: number | null;
}

/** A Standard Webhooks secret: `whsec_` and 24 random bytes in base64 (the bytes are the HMAC key). */
export const newSecret = (): string => `whsec_${randomBytes(24).toString('base64')}`;

const newId = (prefix: string): string => `${prefix}_${randomUUID().replace(/-/g, '')}`;

export const num = (value: number | string | null): number | null => (value === null ? null : Number(value));

export function toVigilancia(row: VigilanciaRow): Vigilancia {
  return {
    id: row.id,
    usuario: row.usuario,
    cuenta: row.cuenta,
    nombre: row.nombre,
    fracciones: JSON.parse(row.fracciones) as string[],
    conjuntos: JSON.parse(row.conjuntos) as string[],
    url: row.url,
    secreto: row.secreto,
    activa: Boolean(row.activa),
    creada: Number(row.creada),
    actualizada: Number(row.actualizada),
  };
}

function toEntrega(row: EntregaRow): Entrega {
  return {
    id: row.id,
    evento: row.evento,
    tipo: row.tipo,
    estado: row.estado as Entrega['estado'],
    intentos: Number(row.intentos),
    ultimo_codigo: num(row.ultimo_codigo),
    ultimo_error: row.ultimo_error,
    creada: Number(row.creada),
    siguiente_intento: num(row.siguiente_intento),
    entregada: num(row.entregada),
  };
}

export const VIGILANCIA_COLUMNS = '"id", "usuario", "nombre", "fracciones", "conjuntos", "url", "secreto", "activa", "creada", "actualizada", "cuenta"';
const ENTREGA_SELECT = `SELECT d."id", d."evento", d."vigilancia", e."tipo", d."estado", d."intentos", d."ultimo_codigo", d."ultimo_error", d."creada", d."siguiente_intento", d."entregada"
  FROM "vigilancias_entregas" d JOIN "vigilancias_eventos" e ON e."id" = d."evento"`;

/** An event and its delivery, written together: the outbox row exists before any attempt. */
export async function queueEvent(tx: WorkStatements, vigilancia: string, tipo: string, body: (eventId: string) => string, now: number): Promise<Entrega> {
  const p = (i: number): string => tx.dialect.placeholder(i);
  const evento = newId('msg');
  await tx.run(`INSERT INTO "vigilancias_eventos" ("id", "vigilancia", "tipo", "cuerpo", "creado") VALUES (${p(1)}, ${p(2)}, ${p(3)}, ${p(4)}, ${p(5)})`, [
    evento,
    vigilancia,
    tipo,
    body(evento),
    now,
  ]);
  return insertDelivery(tx, evento, vigilancia, tipo, now);
}

async function insertDelivery(tx: WorkStatements, evento: string, vigilancia: string, tipo: string, now: number): Promise<Entrega> {
  const p = (i: number): string => tx.dialect.placeholder(i);
  const id = newId('ent');
  await tx.run(
    `INSERT INTO "vigilancias_entregas" ("id", "evento", "vigilancia", "estado", "intentos", "creada", "siguiente_intento") VALUES (${p(1)}, ${p(2)}, ${p(3)}, 'pendiente', 0, ${p(4)}, ${p(5)})`,
    [id, evento, vigilancia, now, now],
  );
  return {
    id,
    evento,
    tipo,
    estado: 'pendiente',
    intentos: 0,
    ultimo_codigo: null,
    ultimo_error: null,
    creada: now,
    siguiente_intento: now,
    entregada: null,
  };
}

export type Created = { readonly vigilancia: Vigilancia } | { readonly limit: number };

export class Vigilancias {
  constructor(
    readonly db: WorkDb,
    /** Called when a delivery is queued, so that it is sent at once. */
    private readonly queued: () => void,
    private readonly clock: () => number = Date.now,
    /** Resolves once the versions already loaded are claimed (src/vigilancias/events.ts): a watch list made before would be told of them. */
    private readonly started: () => Promise<void> = () => Promise.resolve(),
  ) {}

  ready(): Promise<void> {
    return this.db.ensure(vigilanciasDdl(this.db.types));
  }

  private p(i: number): string {
    return this.db.dialect.placeholder(i);
  }

  /** A watch list of `cuenta` (the account of the user `usuario`), unless the account has `limit` already. */
  async create(usuario: string, cuenta: string, input: VigilanciaInput, limit: number): Promise<Created> {
    await this.started();
    await this.ready();
    const now = this.clock();
    const vigilancia: Vigilancia = { ...input, id: newId('vig'), usuario, cuenta, secreto: newSecret(), activa: true, creada: now, actualizada: now };
    return this.db.transaction(async (tx) => {
      const p = (i: number): string => tx.dialect.placeholder(i);
      const [count] = await tx.all<{ n: number | string }>(`SELECT COUNT(*) AS "n" FROM "vigilancias" WHERE "cuenta" = ${p(1)}`, [cuenta]);
      if (Number(count?.n ?? 0) >= limit) return { limit };
      await tx.run(`INSERT INTO "vigilancias" (${VIGILANCIA_COLUMNS}) VALUES (${Array.from({ length: 11 }, (_, i) => p(i + 1)).join(', ')})`, [
        vigilancia.id,
        usuario,
        input.nombre,
        JSON.stringify(input.fracciones),
        JSON.stringify(input.conjuntos),
        input.url,
        vigilancia.secreto,
        tx.bool(true),
        now,
        now,
        cuenta,
      ]);
      return { vigilancia };
    });
  }

  async list(cuenta: string, skip: number, limit: number): Promise<{ items: Vigilancia[]; total: number }> {
    await this.ready();
    const [count] = await this.db.all<{ n: number | string }>(`SELECT COUNT(*) AS "n" FROM "vigilancias" WHERE "cuenta" = ${this.p(1)}`, [cuenta]);
    const rows = await this.db.all<VigilanciaRow>(
      `SELECT ${VIGILANCIA_COLUMNS} FROM "vigilancias" WHERE "cuenta" = ${this.p(1)} ORDER BY "creada", "id" LIMIT ${this.p(2)} OFFSET ${this.p(3)}`,
      [cuenta, limit, skip],
    );
    return { items: rows.map(toVigilancia), total: Number(count?.n ?? 0) };
  }

  async get(cuenta: string, id: string): Promise<Vigilancia | undefined> {
    await this.ready();
    const [row] = await this.db.all<VigilanciaRow>(`SELECT ${VIGILANCIA_COLUMNS} FROM "vigilancias" WHERE "id" = ${this.p(1)} AND "cuenta" = ${this.p(2)}`, [
      id,
      cuenta,
    ]);
    return row ? toVigilancia(row) : undefined;
  }

  /** Replaces what the owner wrote; saving a watch list a 410 disabled makes it active again. */
  async replace(cuenta: string, id: string, input: VigilanciaInput): Promise<Vigilancia | undefined> {
    await this.ready();
    const p = (i: number): string => this.p(i);
    const changed = await this.db.run(
      `UPDATE "vigilancias" SET "nombre" = ${p(1)}, "fracciones" = ${p(2)}, "conjuntos" = ${p(3)}, "url" = ${p(4)}, "activa" = ${p(5)}, "actualizada" = ${p(6)} WHERE "id" = ${p(7)} AND "cuenta" = ${p(8)}`,
      [input.nombre, JSON.stringify(input.fracciones), JSON.stringify(input.conjuntos), input.url, this.db.bool(true), this.clock(), id, cuenta],
    );
    return changed === 0 ? undefined : this.get(cuenta, id);
  }

  /** The watch list, its events and its deliveries (pending ones are dropped with it). */
  async remove(cuenta: string, id: string): Promise<boolean> {
    await this.ready();
    return this.db.transaction(async (tx) => {
      const p = (i: number): string => tx.dialect.placeholder(i);
      const removed = await tx.run(`DELETE FROM "vigilancias" WHERE "id" = ${p(1)} AND "cuenta" = ${p(2)}`, [id, cuenta]);
      if (removed === 0) return false;
      await tx.run(`DELETE FROM "vigilancias_entregas" WHERE "vigilancia" = ${p(1)}`, [id]);
      await tx.run(`DELETE FROM "vigilancias_eventos" WHERE "vigilancia" = ${p(1)}`, [id]);
      return true;
    });
  }

  async rotateSecret(cuenta: string, id: string): Promise<Vigilancia | undefined> {
    await this.ready();
    const changed = await this.db.run(
      `UPDATE "vigilancias" SET "secreto" = ${this.p(1)}, "actualizada" = ${this.p(2)} WHERE "id" = ${this.p(3)} AND "cuenta" = ${this.p(4)}`,
      [newSecret(), this.clock(), id, cuenta],
    );
    return changed === 0 ? undefined : this.get(cuenta, id);
  }

  /** Queues a `tarifa.prueba` event with empty `data`. */
  async test(cuenta: string, id: string): Promise<Entrega | undefined> {
    const vigilancia = await this.get(cuenta, id);
    if (!vigilancia) return undefined;
    const now = this.clock();
    const entrega = await this.db.transaction((tx) =>
      queueEvent(tx, id, 'tarifa.prueba', () => JSON.stringify({ type: 'tarifa.prueba', timestamp: isoSeconds(now), data: {} }), now),
    );
    this.queued();
    return entrega;
  }

  async deliveries(cuenta: string, id: string, skip: number, limit: number): Promise<{ items: Entrega[]; total: number } | undefined> {
    if (!(await this.get(cuenta, id))) return undefined;
    const [count] = await this.db.all<{ n: number | string }>(`SELECT COUNT(*) AS "n" FROM "vigilancias_entregas" WHERE "vigilancia" = ${this.p(1)}`, [id]);
    const rows = await this.db.all<EntregaRow>(
      `${ENTREGA_SELECT} WHERE d."vigilancia" = ${this.p(1)} ORDER BY d."creada" DESC, d."id" DESC LIMIT ${this.p(2)} OFFSET ${this.p(3)}`,
      [id, limit, skip],
    );
    return { items: rows.map(toEntrega), total: Number(count?.n ?? 0) };
  }

  /**
   * Sends a delivered or failed delivery again: a new delivery of the same event (so the same
   * `webhook-id`), leaving the old one's record as it was. 'pendiente' when it is still being sent.
   */
  async resend(cuenta: string, id: string, entrega: string): Promise<Entrega | 'pendiente' | undefined> {
    if (!(await this.get(cuenta, id))) return undefined;
    const [row] = await this.db.all<EntregaRow>(`${ENTREGA_SELECT} WHERE d."id" = ${this.p(1)} AND d."vigilancia" = ${this.p(2)}`, [entrega, id]);
    if (!row) return undefined;
    if (row.estado === 'pendiente') return 'pendiente';
    const now = this.clock();
    const again = await this.db.transaction((tx) => insertDelivery(tx, row.evento, id, row.tipo, now));
    this.queued();
    return again;
  }

  /**
   * Hands the watch lists made before accounts existed (no `cuenta`) to the account of their user, as
   * the user is now: only those made since that user was created (older ones were a removed user's of
   * the same name). Those that no user owns go to an account closed as `sin_usuario`: kept, never told
   * of changes nor sent anything, shown to no one. How many were handed over.
   */
  async claimLegacy(find: (usuario: string) => Promise<LegacyOwner | undefined>): Promise<number> {
    await this.ready();
    const names = await this.db.all<{ usuario: string }>('SELECT DISTINCT "usuario" FROM "vigilancias" WHERE "cuenta" IS NULL');
    let claimed = 0;
    for (const { usuario } of names) {
      const owner = await find(usuario);
      await this.db.transaction(async (tx) => {
        const p = (i: number): string => tx.dialect.placeholder(i);
        if (owner !== undefined) {
          claimed += await tx.run(`UPDATE "vigilancias" SET "cuenta" = ${p(1)} WHERE "cuenta" IS NULL AND "usuario" = ${p(2)} AND "creada" >= ${p(3)}`, [
            owner.account,
            usuario,
            Date.parse(owner.createdAt),
          ]);
          if (owner.disabled) await closeAccount(tx, owner.account, usuario, 'deshabilitada');
        }
        const orphan = accountOf(usuario, '');
        if ((await tx.run(`UPDATE "vigilancias" SET "cuenta" = ${p(1)} WHERE "cuenta" IS NULL AND "usuario" = ${p(2)}`, [orphan, usuario])) > 0) {
          await closeAccount(tx, orphan, usuario, 'sin_usuario');
        }
      });
    }
    return claimed;
  }

  /** Deletes the watch lists of removed users' accounts with their events and deliveries (pending ones are never sent); how many. */
  async purgeRemoved(): Promise<number> {
    await this.ready();
    const gone = await this.db.all<{ id: string }>(`SELECT "id" FROM "vigilancias" WHERE "cuenta" IN (${closedFor('eliminada')})`);
    for (const { id } of gone) {
      await this.db.transaction(async (tx) => {
        const p = (i: number): string => tx.dialect.placeholder(i);
        await tx.run(`DELETE FROM "vigilancias" WHERE "id" = ${p(1)}`, [id]);
        await tx.run(`DELETE FROM "vigilancias_entregas" WHERE "vigilancia" = ${p(1)}`, [id]);
        await tx.run(`DELETE FROM "vigilancias_eventos" WHERE "vigilancia" = ${p(1)}`, [id]);
      });
    }
    return gone.length;
  }
}

/** An instant as the events write it: UTC, to the second. */
export const isoSeconds = (ms: number): string => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
