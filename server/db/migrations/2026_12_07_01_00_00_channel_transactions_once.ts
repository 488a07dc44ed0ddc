import { sql, type Kysely } from 'kysely'

/**
 * A channel transaction is recorded once (`batch_transactions_once`): one row per chain epoch, transaction hash, kind
 * and channel (none for the receiver's claims and settles), whatever records it: the gateway's channel manager, the
 * claims read back from the chain, the journal's recovery or the withdrawal reading, in any process of a cluster. A
 * buyer's one transaction may move several channels (the contract's multicall), hence the channel in the key; a row
 * without a transaction (none was sent) is not a transaction. Rows a race recorded twice before it are left one: the
 * earliest.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    delete from batch_transactions
    where "transaction" <> ''
      and exists (
        select 1 from batch_transactions earlier
        where earlier.chain_epoch = batch_transactions.chain_epoch
          and earlier."transaction" = batch_transactions."transaction"
          and earlier.kind = batch_transactions.kind
          and coalesce(earlier.channel_id, '') = coalesce(batch_transactions.channel_id, '')
          and (earlier.created_at < batch_transactions.created_at
            or (earlier.created_at = batch_transactions.created_at and earlier.id < batch_transactions.id))
      )
  `.execute(db)
  await sql`
    create unique index batch_transactions_once
    on batch_transactions (chain_epoch, "transaction", kind, (coalesce(channel_id, '')))
    where "transaction" <> ''
  `.execute(db)
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('batch_transactions_once').execute()
}
