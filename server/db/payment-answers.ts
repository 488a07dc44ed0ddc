import type { Kysely } from 'kysely'
import type { PaymentAnswersTable } from './payment-tables.js'
import type { Database } from './tables.js'

export type PaymentAnswerKey = { apiId: string; payer: string; paymentId: string }
/** What is kept: answers younger than `since` (ISO), at most `maxRows` of them and `maxBytes` of bodies in all. */
export type PaymentAnswerBounds = { since: string; maxRows: number; maxBytes: number }

/** The kept answer of a payment id, if it is younger than `since` (ISO). */
export async function findPaymentAnswer(
  db: Kysely<Database>,
  key: PaymentAnswerKey,
  since: string,
): Promise<PaymentAnswersTable | undefined> {
  return db
    .selectFrom('payment_answers')
    .selectAll()
    .where('api_id', '=', key.apiId)
    .where('payer', '=', key.payer)
    .where('payment_id', '=', key.paymentId)
    .where('created_at', '>=', since)
    .executeTakeFirst()
}

/**
 * Keeps an answer (replacing an expired one of the same id), then drops what is older than `since` and the oldest
 * rows beyond `maxRows` or `maxBytes` of bodies in total.
 */
export async function keepPaymentAnswer(
  db: Kysely<Database>,
  row: PaymentAnswersTable,
  bounds: PaymentAnswerBounds,
): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await trx
      .insertInto('payment_answers')
      .values(row)
      .onConflict((c) => c.columns(['api_id', 'payer', 'payment_id']).doUpdateSet(row))
      .execute()
    await trx.deleteFrom('payment_answers').where('created_at', '<', bounds.since).execute()
    const total = await trx
      .selectFrom('payment_answers')
      .select((eb) => [eb.fn.countAll<number>().as('rows'), eb.fn.sum<number>('body_bytes').as('bytes')])
      .executeTakeFirstOrThrow()
    let rows = Number(total.rows)
    let bytes = Number(total.bytes ?? 0)
    if (rows <= bounds.maxRows && bytes <= bounds.maxBytes) return
    const oldest = await trx
      .selectFrom('payment_answers')
      .select(['api_id', 'payer', 'payment_id', 'body_bytes'])
      .orderBy('created_at')
      .execute()
    for (const old of oldest) {
      if (rows <= bounds.maxRows && bytes <= bounds.maxBytes) break
      await trx
        .deleteFrom('payment_answers')
        .where('api_id', '=', old.api_id)
        .where('payer', '=', old.payer)
        .where('payment_id', '=', old.payment_id)
        .execute()
      rows -= 1
      bytes -= old.body_bytes
    }
  })
}
