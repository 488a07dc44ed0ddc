/** CSV (RFC 4180) for the settlements export. */

/** The columns of the export, in order: the fields of a settlement record. */
export const settlementColumns = [
  'id',
  'api_id',
  'endpoint_id',
  'environment',
  'network',
  'asset',
  'amount',
  'payer',
  'pay_to',
  'transaction',
  'method',
  'path',
  'created_at',
  'chain_epoch',
  'old_chain',
  'delivered',
  // An escrow payment's (x402 auth-capture): its state and amounts; empty for other schemes.
  'escrow_state',
  'authorized',
  'captured',
  'refunded',
] as const

/** A field, quoted (quotes doubled) when it holds a comma, a quote, CR or LF; null is an empty field. */
export function csvField(value: string | number | boolean | null | undefined): string {
  const text = value === null || value === undefined ? '' : String(value)
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text
}

/** One record, CRLF-terminated. */
export const csvLine = (values: readonly (string | number | boolean | null | undefined)[]) =>
  `${values.map(csvField).join(',')}\r\n`
