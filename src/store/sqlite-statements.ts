/** Prepared statements of one SQLite connection: each prepared on its first use and kept by its SQL text. */
import type Database from 'better-sqlite3';

/** `raw`: the statements give rows as arrays (SqliteStore turns them into objects once per record set). */
export function statementCache(db: Database.Database, raw = false): (sql: string) => Database.Statement {
  const statements = new Map<string, Database.Statement>();
  return (sql) => {
    let statement = statements.get(sql);
    if (!statement) {
      statement = raw ? db.prepare(sql).raw(true) : db.prepare(sql);
      statements.set(sql, statement);
    }
    return statement;
  };
}
