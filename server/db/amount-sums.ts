import { sql, type AliasedRawBuilder, type Kysely } from 'kysely'
import { dialectOf } from './dialect.js'

/**
 * Exact sums of decimal-string amounts (uint256) in SQL; amounts that are not plain digits count as 0.
 * - SQLite has no wider integer than 64 bits: each amount is cut into 9-digit chunks (81 digits cover uint256) that it
 *   sums as 64-bit integers (exact for fewer than 9.2e9 rows per group) and answers as text.
 * - PostgreSQL sums `numeric`, exact at any width, into one text column (`c0`).
 * {@link joinAmountChunks} puts the chunks back together with BigInt (PostgreSQL's one column is the whole sum).
 */
export const amountChunkCount = 9

/** The select expressions `c0` … `c8` (PostgreSQL: `c0`) of a grouped query over a table with an `amount` column. */
export function amountChunkSums(db: Kysely<any>): AliasedRawBuilder<string | null, `c${number}`>[] {
  if (dialectOf(db).name === 'postgres')
    return [sql<string | null>`sum(case when amount ~ '^[0-9]+$' then amount::numeric else 0 end)::text`.as('c0')]
  return Array.from({ length: amountChunkCount }, (_, k) =>
    sql<
      string | null
    >`cast(sum(case when amount <> '' and amount not glob '*[^0-9]*' then cast(substr(amount, ${-9 * (k + 1)}, 9) as integer) else 0 end) as text)`.as(
      `c${k}`,
    ),
  )
}

/** The exact sum of a row's chunk columns (a column the dialect did not select counts as 0). */
export function joinAmountChunks(row: Record<string, unknown>): bigint {
  let total = 0n
  for (let k = amountChunkCount - 1; k >= 0; k--)
    total = total * 1_000_000_000n + BigInt((row[`c${k}`] as string | null) ?? '0')
  return total
}
