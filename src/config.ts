/**
 * Configuration: one schema, read from the environment once (by server.ts and the CLI), validated,
 * with documented defaults. The type is derived from the schema, never written twice.
 */
import { fileURLToPath } from 'node:url';
import { Type } from '@sinclair/typebox';
import type { Static } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';

/** The project's own folder, for the embedded default's data file. */
export const projectRoot = fileURLToPath(new URL('../../', import.meta.url));
export const defaultDatabasePath = fileURLToPath(new URL('../../data/tariff.sqlite', import.meta.url));
export const demoSourcesDir = fileURLToPath(new URL('../../data/sources/', import.meta.url));

const LogLevel = Type.Union(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].map((l) => Type.Literal(l)));

export const ConfigSchema = Type.Object({
  HOST: Type.String({ default: '127.0.0.1', minLength: 1, description: 'Address to listen on' }),
  PORT: Type.Integer({ default: 8000, minimum: 0, maximum: 65535, description: 'Port to listen on' }),
  DATABASE_URL: Type.String({
    default: '',
    description: 'sqlite:PATH, or empty for the embedded demo database in the data folder',
  }),
  LOG_LEVEL: Type.Unsafe<'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent'>({
    ...LogLevel,
    default: 'info',
  }),
  JWT_SECRET: Type.String({ default: '', description: 'Secret that signs access tokens (at least 32 bytes)' }),
  JWT_ALGORITHM: Type.Union([Type.Literal('HS256'), Type.Literal('HS384'), Type.Literal('HS512')], { default: 'HS256' }),
  ACCESS_TOKEN_EXPIRE_MINUTES: Type.Integer({ default: 30, minimum: 1, maximum: 525600 }),
  LOGIN_MAX_FAILURES: Type.Integer({ default: 5, minimum: 1, description: 'Failed logins allowed per username in the window' }),
  LOGIN_MAX_FAILURES_PER_ADDRESS: Type.Integer({ default: 20, minimum: 1, description: 'Failed logins allowed per client address in the window' }),
  LOGIN_WINDOW_MINUTES: Type.Integer({ default: 15, minimum: 1 }),
  RESPONSE_CACHE_ENTRIES: Type.Integer({ default: 10000, minimum: 0, description: 'Answers kept in memory per dataset; 0 turns the cache off' }),
  RESPONSE_CACHE_MB: Type.Integer({ default: 64, minimum: 0, description: 'Memory the answer cache may use' }),
  CORS_ORIGINS: Type.String({ default: '', description: 'Comma-separated origins allowed to call from a browser; empty: CORS off' }),
});

export type Config = Static<typeof ConfigSchema>;

export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

/** Reads the configuration from an environment; unknown variables are ignored, bad values are one clear error. */
export function loadConfig(env: Readonly<Record<string, string | undefined>>): Config {
  const input: Record<string, unknown> = {};
  for (const key of Object.keys(ConfigSchema.properties)) {
    const value = env[key];
    if (value !== undefined && value !== '') input[key] = value;
  }
  const withDefaults = Value.Default(ConfigSchema, Value.Convert(ConfigSchema, input));
  const errors = [...Value.Errors(ConfigSchema, withDefaults)];
  const first = errors[0];
  if (first) {
    const name = first.path.replace(/^\//, '');
    throw new ConfigError(`invalid ${name}=${JSON.stringify(env[name] ?? '')}: ${first.message}`);
  }
  return withDefaults as Config;
}

/** The embedded demo: no database configured, so the project's own demo file is served. */
export const isEmbeddedDemo = (config: Config): boolean => config.DATABASE_URL === '';

export function sqlitePath(config: Config): string {
  if (isEmbeddedDemo(config)) return defaultDatabasePath;
  const match = /^sqlite:(.+)$/.exec(config.DATABASE_URL);
  if (!match?.[1]) throw new ConfigError(`invalid DATABASE_URL: expected sqlite:PATH`);
  return match[1];
}
