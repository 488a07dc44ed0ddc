import { sql, type AliasedRawBuilder } from 'kysely'

/**
 * Exact sums of decimal-string amounts in SQL: each amount is cut into 9-digit chunks (81 digits cover uint256)
 * that SQLite sums as 64-bit integers (exact for fewer than 9.2e9 rows per group) and answers as text; {@link
 * joinAmountChunks} puts the chunks back together with BigInt. Amounts that are not plain digits count as 0.
 */
export const amountChunkCount = 9

/** The select expressions `c0` … `c8` of a grouped query over a table with an `amount` column. */
export function amountChunkSums(): AliasedRawBuilder<string | null, `c${number}`>[] {
  return Array.from({ length: amountChunkCount }, (_, k) =>
    sql<
      string | null
    >`cast(sum(case when amount <> '' and amount not glob '*[^0-9]*' then cast(substr(amount, ${-9 * (k + 1)}, 9) as integer) else 0 end) as text)`.as(
      `c${k}`,
    ),
  )
}

/** The exact sum of a row's chunk columns. */
export function joinAmountChunks(row: Record<string, unknown>): bigint {
  let total = 0n
  for (let k = amountChunkCount - 1; k >= 0; k--)
    total = total * 1_000_000_000n + BigInt((row[`c${k}`] as string | null) ?? '0')
  return total
}
