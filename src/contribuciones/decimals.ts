/**
 * How the contract writes an exact decimal: 1 to 13 ASCII digits, then at most `scale` decimals; no
 * sign, exponent or grouping. The body's schema (schema.ts) checks them, and so does a batch's line
 * (src/lotes/columns.ts) without loading TypeBox into the batches' thread.
 */
export const DECIMAL_PATTERNS = {
  money: '^\\d{1,13}(\\.\\d{1,2})?$',
  quantity: '^\\d{1,13}(\\.\\d{1,3})?$',
  exchangeRate: '^\\d{1,13}(\\.\\d{1,4})?$',
} as const;
