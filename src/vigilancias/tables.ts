/**
 * The watch lists' working tables (docs/adr/0012-vigilancias.md), in the service's working store
 * (src/store/work.ts): the watch lists, the events queued for them, the outbox of their deliveries, and
 * one row per version and moment whose events were generated, claimed before they are, so that a
 * restart or another copy never generates them twice.
 */
import { accountsDdl } from '../store/accounts.js';
import type { WorkTypes } from '../store/work.js';

const byTypes = new Map<WorkTypes, readonly string[]>();

/** The DDL, one array per column-type set (WorkDb.ensure runs each array once). */
export function vigilanciasDdl(types: WorkTypes): readonly string[] {
  let ddl = byTypes.get(types);
  if (ddl) return ddl;
  ddl = [
    `CREATE TABLE IF NOT EXISTS "vigilancias" (
      "id" TEXT PRIMARY KEY,
      "usuario" TEXT NOT NULL,
      "nombre" TEXT NOT NULL,
      "fracciones" TEXT NOT NULL,
      "conjuntos" TEXT NOT NULL,
      "url" TEXT NOT NULL,
      "secreto" TEXT NOT NULL,
      "activa" ${types.boolean} NOT NULL,
      "creada" ${types.bigint} NOT NULL,
      "actualizada" ${types.bigint} NOT NULL,
      "cuenta" TEXT
    )`,
    // Watch lists made before accounts existed are handed to theirs by Vigilancias.claimLegacy.
    `ALTER TABLE "vigilancias" ${types.addColumn} "cuenta" TEXT`,
    `CREATE INDEX IF NOT EXISTS "vigilancias_usuario" ON "vigilancias" ("usuario", "creada")`,
    `CREATE INDEX IF NOT EXISTS "vigilancias_cuenta" ON "vigilancias" ("cuenta", "creada")`,
    accountsDdl(types),
    `CREATE TABLE IF NOT EXISTS "vigilancias_eventos" (
      "id" TEXT PRIMARY KEY,
      "vigilancia" TEXT NOT NULL,
      "tipo" TEXT NOT NULL,
      "cuerpo" TEXT NOT NULL,
      "creado" ${types.bigint} NOT NULL
    )`,
    `CREATE INDEX IF NOT EXISTS "vigilancias_eventos_vigilancia" ON "vigilancias_eventos" ("vigilancia")`,
    `CREATE TABLE IF NOT EXISTS "vigilancias_entregas" (
      "id" TEXT PRIMARY KEY,
      "evento" TEXT NOT NULL,
      "vigilancia" TEXT NOT NULL,
      "estado" TEXT NOT NULL,
      "intentos" INTEGER NOT NULL,
      "ultimo_codigo" INTEGER,
      "ultimo_error" TEXT,
      "creada" ${types.bigint} NOT NULL,
      "siguiente_intento" ${types.bigint},
      "entregada" ${types.bigint},
      "tomada_por" TEXT,
      "tomada_hasta" ${types.bigint}
    )`,
    `CREATE INDEX IF NOT EXISTS "vigilancias_entregas_pendientes" ON "vigilancias_entregas" ("estado", "siguiente_intento")`,
    `CREATE INDEX IF NOT EXISTS "vigilancias_entregas_vigilancia" ON "vigilancias_entregas" ("vigilancia", "creada")`,
    `CREATE TABLE IF NOT EXISTS "vigilancias_generaciones" (
      "clave" TEXT PRIMARY KEY,
      "estado" TEXT NOT NULL,
      "dueno" TEXT NOT NULL,
      "hasta" ${types.bigint} NOT NULL,
      "eventos" INTEGER NOT NULL
    )`,
  ];
  byTypes.set(types, ddl);
  return ddl;
}

export interface VigilanciaRow {
  readonly id: string;
  readonly usuario: string;
  readonly cuenta: string | null;
  readonly nombre: string;
  readonly fracciones: string;
  readonly conjuntos: string;
  readonly url: string;
  readonly secreto: string;
  readonly activa: boolean | number;
  readonly creada: number | string;
  readonly actualizada: number | string;
}

export interface EntregaRow {
  readonly id: string;
  readonly evento: string;
  readonly vigilancia: string;
  readonly tipo: string;
  readonly estado: string;
  readonly intentos: number;
  readonly ultimo_codigo: number | null;
  readonly ultimo_error: string | null;
  readonly creada: number | string;
  readonly siguiente_intento: number | string | null;
  readonly entregada: number | string | null;
}
