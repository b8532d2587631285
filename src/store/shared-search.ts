/**
 * The search structures of one load (vocabulary, posting index), shared by every store of this
 * process that serves it: a service that opens its data again (a reload, a version's file, which on
 * SQLite is a link to the load's file) and every server a test starts over a copy of the same data
 * built them again, about a second of CPU for the demo dataset. A load is named by its dataset_info
 * row (source, the instant it was stamped, content hash, counts): the search tables are written by the
 * same load as that row, and never after. The last load asked for is held here; the others only while
 * a store holds them, so a service that replaced its data lets the old structures go with the old store.
 */
let last: { key: string; value: object } | undefined;
const byLoad = new Map<string, WeakRef<object>>();
const forget = new FinalizationRegistry<string>((key) => {
  if (byLoad.get(key)?.deref() === undefined) byLoad.delete(key);
});

/** The structures of the load named `key`, made by `make` when no store of this process holds them. */
export function sharedByLoad<T extends object>(key: string, make: () => T): T {
  if (last?.key === key) return last.value as T;
  let value = byLoad.get(key)?.deref() as T | undefined;
  if (value === undefined) {
    value = make();
    byLoad.set(key, new WeakRef(value));
    forget.register(value, key);
  }
  last = { key, value };
  return value;
}

/** The structures of the load named `key` if a store of this process holds them. */
export function heldForLoad<T extends object>(key: string): T | undefined {
  return (last?.key === key ? last.value : byLoad.get(key)?.deref()) as T | undefined;
}
