import type SQLite from 'better-sqlite3'
import type { Kysely } from 'kysely'
import type { PaymentAnswerBounds, PaymentAnswerKey } from '../payment-answers.js'
import type { PaymentAnswersTable } from '../payment-tables.js'
import type { Database } from '../tables.js'

/**
 * The payment-identifier answers' statements (server/db/payment-answers.ts says what they do) prepared on svc's one
 * SQLite connection, for the gateway store (gateway-store.ts): run there, their writes are the gateway's own
 * bookkeeping, which leaves the gateway's caches be, as a settlement's record does.
 */
export function preparePaymentAnswers(connection: SQLite.Database, db: Kysely<Database>) {
  const columns = Object.keys(sampleAnswer) as (keyof PaymentAnswersTable)[]
  const keyColumns = ['api_id', 'payer', 'payment_id'] as const
  const upsert = db
    .insertInto('payment_answers')
    .values(sampleAnswer)
    .onConflict((conflict) =>
      conflict
        .columns([...keyColumns])
        .doUpdateSet((eb) =>
          Object.fromEntries(
            columns
              .filter((column) => !(keyColumns as readonly string[]).includes(column))
              .map((column) => [column, eb.ref(`excluded.${column}`)]),
          ),
        ),
    )
    .compile()
  if (upsert.parameters.length !== columns.length)
    throw new Error(`${upsert.sql}: expected ${columns.length} parameters`)
  const insert = connection.prepare(upsert.sql)
  const find = connection.prepare(
    db
      .selectFrom('payment_answers')
      .selectAll()
      .where('api_id', '=', '')
      .where('payer', '=', '')
      .where('payment_id', '=', '')
      .where('created_at', '>=', '')
      .compile().sql,
  )
  const dropBefore = connection.prepare(db.deleteFrom('payment_answers').where('created_at', '<', '').compile().sql)
  const totals = connection.prepare(
    db
      .selectFrom('payment_answers')
      .select((eb) => [eb.fn.countAll<number>().as('rows'), eb.fn.sum<number>('body_bytes').as('bytes')])
      .compile().sql,
  )
  const oldest = connection.prepare(
    db
      .selectFrom('payment_answers')
      .select(['api_id', 'payer', 'payment_id', 'body_bytes'])
      .orderBy('created_at')
      .compile().sql,
  )
  const drop = connection.prepare(
    db
      .deleteFrom('payment_answers')
      .where('api_id', '=', '')
      .where('payer', '=', '')
      .where('payment_id', '=', '')
      .compile().sql,
  )

  /** Keeps `row` and trims the table to `bounds`, in one transaction: the rows it changed. */
  const keep = connection.transaction((row: PaymentAnswersTable, bounds: PaymentAnswerBounds) => {
    let changed = insert.run(...columns.map((column) => row[column])).changes
    changed += dropBefore.run(bounds.since).changes
    const total = totals.get() as { rows: number; bytes: number | null }
    let rows = Number(total.rows)
    let bytes = Number(total.bytes ?? 0)
    if (rows <= bounds.maxRows && bytes <= bounds.maxBytes) return changed
    // All read before any is deleted: a statement cannot run while another iterates on the connection.
    const candidates = oldest.all() as Pick<PaymentAnswersTable, (typeof keyColumns)[number] | 'body_bytes'>[]
    for (const old of candidates) {
      if (rows <= bounds.maxRows && bytes <= bounds.maxBytes) break
      changed += drop.run(old.api_id, old.payer, old.payment_id).changes
      rows -= 1
      bytes -= old.body_bytes
    }
    return changed
  })

  return {
    find: (key: PaymentAnswerKey, since: string) =>
      find.get(key.apiId, key.payer, key.paymentId, since) as PaymentAnswersTable | undefined,
    keep: (row: PaymentAnswersTable, bounds: PaymentAnswerBounds): number => keep.immediate(row, bounds),
  }
}

const sampleAnswer: PaymentAnswersTable = {
  api_id: '',
  payer: '',
  payment_id: '',
  request_key: '',
  payment_key: '',
  settlement_id: '',
  status: 0,
  headers: '',
  body: null,
  body_bytes: 0,
  created_at: '',
}
