import { sql, type Kysely } from 'kysely'
import type { PaymentAnswerKey } from './payment-answers.js'
import type { ProcessOwner } from './process-owner.js'
import type { Database } from './tables.js'

/** What a claim of a payment-identifier id found: it is this request's now, or another request holds it. */
export type PaymentIdClaim = { claimed: true } | { claimed: false; requestKey: string }

/** The ids in flight across every process on the database (PostgreSQL; server/payments/identifier.ts). */
export type PaymentIdClaims = {
  /** Claims `key` for a request asking `requestKey`; another live request's claim wins (its request key answered). */
  claim(key: PaymentAnswerKey, requestKey: string): Promise<PaymentIdClaim>
  /** Lets go of an id this process claimed (its request was answered). */
  release(key: PaymentAnswerKey): Promise<void>
}

const fromNow = (ms: number) => sql<Date>`now() + ${Math.round(ms)}::int * interval '1 millisecond'`

/**
 * PostgreSQL: a payment-identifier id in flight is a row of `payment_id_claims`, claimed by one statement (`INSERT …
 * ON CONFLICT DO UPDATE … WHERE` the holder's time ran out, `RETURNING`), so of two processes given the same id at
 * once one runs it and the other answers 409. A claim left by a process that died is taken over at once (its liveness
 * lock is free: server/db/process-owner.ts), or by anyone after `holdMs` (longer than any payment takes).
 */
export function postgresPaymentIdClaims(db: Kysely<Database>, owner: ProcessOwner, holdMs = 300_000): PaymentIdClaims {
  const where = (key: PaymentAnswerKey) =>
    db
      .selectFrom('payment_id_claims')
      .where('api_id', '=', key.apiId)
      .where('payer', '=', key.payer)
      .where('payment_id', '=', key.paymentId)
  return {
    async claim(key, requestKey) {
      const row = {
        api_id: key.apiId,
        payer: key.payer,
        payment_id: key.paymentId,
        request_key: requestKey,
        claimed_by: owner.id,
        claimed_until: fromNow(holdMs),
      }
      // Twice at most: a holder that lets go between the insert and the read leaves the id free for the next insert.
      for (let attempt = 0; attempt < 2; attempt++) {
        const claimed = await db
          .insertInto('payment_id_claims')
          .values(row)
          .onConflict((conflict) =>
            conflict
              .columns(['api_id', 'payer', 'payment_id'])
              .doUpdateSet({
                request_key: sql.ref('excluded.request_key'),
                claimed_by: sql.ref('excluded.claimed_by'),
                claimed_until: sql.ref('excluded.claimed_until'),
              })
              .where(sql.ref('payment_id_claims.claimed_until'), '<', sql<Date>`now()`),
          )
          .returning('payment_id')
          .executeTakeFirst()
        if (claimed) return { claimed: true }
        const holder = await where(key).select(['request_key', 'claimed_by']).executeTakeFirst()
        if (!holder) continue
        if (!(await owner.isGone(holder.claimed_by))) return { claimed: false, requestKey: holder.request_key }
        const taken = await db
          .updateTable('payment_id_claims')
          .set(row)
          .where('api_id', '=', key.apiId)
          .where('payer', '=', key.payer)
          .where('payment_id', '=', key.paymentId)
          .where('claimed_by', '=', holder.claimed_by)
          .returning('payment_id')
          .executeTakeFirst()
        if (taken) return { claimed: true }
      }
      // Claimed and let go, twice over, by others meanwhile: as busy as an id in flight.
      return { claimed: false, requestKey }
    },
    async release(key) {
      await db
        .deleteFrom('payment_id_claims')
        .where('api_id', '=', key.apiId)
        .where('payer', '=', key.payer)
        .where('payment_id', '=', key.paymentId)
        .where('claimed_by', '=', owner.id)
        .execute()
    },
  }
}

/** Deletes claims whose time ran out (their processes died and nobody asked for the id again); answers how many. */
export async function purgePaymentIdClaims(db: Kysely<Database>): Promise<number> {
  const result = await db
    .deleteFrom('payment_id_claims')
    .where('claimed_until', '<', sql<Date>`now()`)
    .executeTakeFirst()
  return Number(result.numDeletedRows)
}
