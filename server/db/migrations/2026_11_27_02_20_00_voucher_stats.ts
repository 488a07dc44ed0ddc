import type { Kysely } from 'kysely'

/** Stats read a seller's channel money by voucher time (GET /stats/overview): vouchers by user and time. */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.createIndex('batch_vouchers_user').on('batch_vouchers').columns(['user_id', 'created_at']).execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('batch_vouchers_user').execute()
}
