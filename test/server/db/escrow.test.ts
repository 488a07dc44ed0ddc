/**
 * Escrow payments' records (x402 auth-capture, issue 39) on both dialects: the payment once per chain epoch and hash,
 * its transactions once per (epoch, transaction, kind) with the settlement's amount (captured − refunded) moved in the
 * same database transaction, the state machine of server/escrow/records.ts through them (authorize → partial capture
 * → void → refund; reclaim; a step applied twice changes nothing), the owner-scoped listings, the reclaim sweep's
 * query, the facilitator's escrow-action journal, and the sellers' receiver-authorizer keys (made once, encrypted).
 */
import { randomBytes } from 'node:crypto'
import type { Kysely } from 'kysely'
import { privateKeyToAccount } from 'viem/accounts'
import { describe, expect, test } from 'vitest'
import type { EscrowAction } from '../../../chain/auth-capture/index.js'
import { decryptSecret } from '../../../server/data-dir/index.js'
import {
  createEscrowActionStore,
  escrowActionOf,
  escrowDb,
  escrowPaymentsOfSettlements,
  escrowPaymentsPastCaptureDeadline,
  findEscrowPayment,
  findOwnedEscrowPayment,
  insertEscrowPayment,
  listEscrowPayments,
  listEscrowTransactions,
  listPendingEscrowActions,
  saveEscrowAction,
} from '../../../server/db/index.js'
import type { Database, SettlementRow } from '../../../server/db/tables.js'
import { insertApi } from '../../../server/db/apis.js'
import { insertUser } from '../../../server/db/users.js'
import { applyEscrowStep, type NewEscrowPayment, recordEscrowCollect } from '../../../server/escrow/index.js'
import { receiverAuthorizerOf } from '../../../server/escrow/keys.js'
import { testDatabases, testDialects } from '../../helpers/postgres.js'

const at = '2026-12-01T00:00:00.000Z'
const owner = { user: { id: 'u1' }, environment: 'development' as const }
/** `at` and `seconds` later (steps recorded in order, not in one millisecond). */
const later = (seconds: number) => new Date(Date.parse(at) + seconds * 1000).toISOString()
const hashOf = (n: number) => `0x${n.toString(16).padStart(64, '0')}` as const
const tx = (n: number) => `0x${(1000 + n).toString(16).padStart(64, 'a')}`

function newPayment(hash: string, overrides: Partial<NewEscrowPayment> = {}): NewEscrowPayment {
  return {
    chain_epoch: 'epoch1',
    payment_info_hash: hash,
    user_id: 'u1',
    api_id: 'a1',
    endpoint_id: 'e1',
    environment: 'development',
    network: 'eip155:845320402',
    asset: '0xusdc',
    payer: '0xpayer',
    pay_to: '0xseller',
    method: 'GET',
    path: '/book',
    flow: 'escrow',
    capture_mode: 'deferred',
    transfer_method: 'eip3009',
    escrow: '0xescrow',
    operator: '0xoperator',
    receiver_authorizer: '0xauthorizer',
    payment_info: JSON.stringify({ maxAmount: '10000' }),
    salt_nonce: null,
    pre_approval_expiry: 1_800_000_000,
    capture_deadline: 2_000_000_000,
    refund_deadline: 2_100_000_000,
    delivered: 1,
    created_at: at,
    ...overrides,
  }
}

const settlement = (id: string): SettlementRow => ({
  id,
  api_id: 'a1',
  endpoint_id: 'e1',
  user_id: 'u1',
  environment: 'development',
  network: 'eip155:845320402',
  asset: '0xusdc',
  amount: '0',
  payer: '0xpayer',
  pay_to: '0xseller',
  transaction: tx(0),
  method: 'GET',
  path: '/book',
  created_at: at,
  chain_epoch: 'epoch1',
  delivered: 1,
  builder_code: null,
})

/** Seller u1 and its API a1 (PostgreSQL's settlements name them by foreign key). */
async function addSellerApi(db: Kysely<Database>) {
  await insertUser(db, {
    id: 'u1',
    email: 'u1@example.test',
    password_hash: 'h',
    password_salt: 's',
    email_verified_at: null,
    created_at: at,
  })
  await insertApi(db, {
    id: 'a1',
    user_id: 'u1',
    environment: 'development',
    name: 'a1',
    slug: 'a1',
    upstream_base_url: 'http://127.0.0.1:9',
    pay_to_mode: 'user_wallet',
    pay_to_address: null,
    discovery_guidance: null,
    discovery_contact_email: null,
    openapi_version: '1.0.0',
    created_at: at,
    updated_at: at,
  })
}

const settlementOf = (db: Kysely<Database>, id: string) =>
  escrowDb(db).selectFrom('settlements').select(['amount', 'escrow_id']).where('id', '=', id).executeTakeFirstOrThrow()

describe.each(testDialects())('escrow records on %s', (dialect) => {
  const databases = testDatabases(dialect)

  test('authorize → partial capture → void → refund: amounts, state and the settlement amount at each step; twice changes nothing', async () => {
    const { db, close } = await databases.open()
    try {
      await addSellerApi(db)
      await db.insertInto('settlements').values(settlement('stl_1')).execute()
      const hash = hashOf(1)
      const authorize = { kind: 'authorize', amount: '10000', transaction: tx(1), actor: 'gateway' } as const
      const first = await recordEscrowCollect(db, newPayment(hash), authorize, 'stl_1')
      expect(first.recorded).toBe(true)
      expect(first.payment).toMatchObject({
        authorized: '10000',
        capturable: '10000',
        captured: '0',
        state: 'authorized',
        settlement_id: 'stl_1',
      })
      expect(await settlementOf(db, 'stl_1')).toEqual({ amount: '0', escrow_id: first.payment.id })
      // The same collect again (the gateway and recovery): one payment, one transaction, nothing moved.
      const again = await recordEscrowCollect(db, newPayment(hash), authorize, 'stl_1')
      expect(again.recorded).toBe(false)
      expect(again.payment.id).toBe(first.payment.id)
      expect(again.payment.authorized).toBe('10000')
      const payment = first.payment

      const capture = { kind: 'capture', amount: '6000', transaction: tx(2), actor: 'seller', at: later(1) } as const
      const captured = await applyEscrowStep(db, payment, capture)
      expect(captured.payment).toMatchObject({ captured: '6000', capturable: '4000', refundable: '6000' })
      expect(captured.payment.state).toBe('authorized')
      expect((await settlementOf(db, 'stl_1')).amount).toBe('6000')
      expect((await applyEscrowStep(db, payment, capture)).recorded).toBe(false)
      expect((await findEscrowPayment(db, payment.id))?.captured).toBe('6000')

      const voided = await applyEscrowStep(db, payment, {
        kind: 'void',
        amount: '4000',
        transaction: tx(3),
        actor: 'seller',
        at: later(2),
      })
      expect(voided.payment).toMatchObject({ voided: '4000', capturable: '0', state: 'captured' })

      const refund = { kind: 'refund', amount: '2000', transaction: tx(4), actor: 'seller', at: later(3) } as const
      const refunded = await applyEscrowStep(db, payment, refund)
      expect(refunded.payment).toMatchObject({ refunded: '2000', refundable: '4000', state: 'captured' })
      expect((await settlementOf(db, 'stl_1')).amount).toBe('4000')
      await applyEscrowStep(db, payment, refund)
      const last = await applyEscrowStep(db, payment, { ...refund, amount: '4000', transaction: tx(5), at: later(4) })
      expect(last.payment).toMatchObject({ refunded: '6000', refundable: '0', state: 'refunded' })
      expect((await settlementOf(db, 'stl_1')).amount).toBe('0')

      const kinds = (await listEscrowTransactions(db, payment.id)).map((row) => [row.kind, row.amount, row.actor])
      expect(kinds).toEqual([
        ['authorize', '10000', 'gateway'],
        ['capture', '6000', 'seller'],
        ['void', '4000', 'seller'],
        ['refund', '2000', 'seller'],
        ['refund', '4000', 'seller'],
      ])
      expect((await escrowPaymentsOfSettlements(db, ['stl_1'])).get('stl_1')?.id).toBe(payment.id)
    } finally {
      await close()
    }
  })

  test('a void without a capture, a reclaim, a charge; listings by owner and state; the sweep finds held payments past their deadline', async () => {
    const { db, close } = await databases.open()
    try {
      const step = (n: number, kind: 'authorize' | 'charge') =>
        ({ kind, amount: '500', feeAmount: '0', transaction: tx(10 + n), actor: 'gateway' }) as const
      const voidable = (await recordEscrowCollect(db, newPayment(hashOf(2)), step(0, 'authorize'))).payment
      const reclaimable = (
        await recordEscrowCollect(db, newPayment(hashOf(3), { capture_deadline: 1_900_000_000 }), step(1, 'authorize'))
      ).payment
      const held = (
        await recordEscrowCollect(
          db,
          newPayment(hashOf(4), { capture_deadline: 1_900_000_001, created_at: '2026-12-01T00:00:01.000Z' }),
          step(2, 'authorize'),
        )
      ).payment
      const charged = await recordEscrowCollect(
        db,
        newPayment(hashOf(5), { flow: 'authorization', capture_mode: null, created_at: '2026-12-01T00:00:02.000Z' }),
        step(3, 'charge'),
      )
      expect(charged.payment).toMatchObject({ state: 'charged', captured: '500', refundable: '500', capturable: '0' })
      // Another seller's payment: never listed, never found by u1.
      const other = await recordEscrowCollect(db, newPayment(hashOf(6), { user_id: 'u2' }), step(4, 'authorize'))

      expect(
        (await applyEscrowStep(db, voidable, { kind: 'void', amount: '500', transaction: tx(20), actor: 'seller' }))
          .payment.state,
      ).toBe('voided')
      // Past their capture deadline by svc's clock: the two holds whose deadline passed, oldest deadline first.
      const due = await escrowPaymentsPastCaptureDeadline(db, 'epoch1', 1_950_000_000)
      expect(due.map((row) => row.id)).toEqual([reclaimable.id, held.id])
      expect(due[0]?.capture_deadline).toBe(1_900_000_000)
      expect(await escrowPaymentsPastCaptureDeadline(db, 'epoch1', 1_800_000_000)).toEqual([])
      expect(await escrowPaymentsPastCaptureDeadline(db, 'epoch2', 1_950_000_000)).toEqual([])
      const back = await applyEscrowStep(db, reclaimable, {
        kind: 'reclaim',
        amount: '500',
        transaction: tx(21),
        actor: 'payer',
      })
      expect(back.payment).toMatchObject({ reclaimed: '500', capturable: '0', state: 'reclaimed' })

      // Newest first (created_at, then id): the charge, the held one, then the two of the same instant.
      const listed = (await listEscrowPayments(db, owner)).map((row) => row.id)
      expect(listed.slice(0, 2)).toEqual([charged.payment.id, held.id])
      expect(listed.slice(2)).toEqual([voidable.id, reclaimable.id].sort().reverse())
      expect((await listEscrowPayments(db, owner, { state: 'authorized' })).map((row) => row.id)).toEqual([held.id])
      expect((await listEscrowPayments(db, owner, { limit: 1 })).map((row) => row.id)).toEqual([charged.payment.id])
      expect(await findOwnedEscrowPayment(db, owner, other.payment.id)).toBeUndefined()
      expect((await findOwnedEscrowPayment(db, owner, held.id))?.payment_info_hash).toBe(hashOf(4))
      // A second payment of the same hash on the same epoch is the same payment; on a new epoch it is another.
      const same = await insertEscrowPayment(db, { ...voidable, id: 'esc_other' })
      expect(same).toMatchObject({ created: false, payment: { id: voidable.id } })
      const next = await insertEscrowPayment(db, { ...voidable, id: 'esc_next', chain_epoch: 'epoch2' })
      expect(next).toMatchObject({ created: true, payment: { id: 'esc_next' } })
    } finally {
      await close()
    }
  })

  test("the facilitator's escrow actions: pending, then their outcome over the row, owned by the process", async () => {
    const { db, close } = await databases.open()
    try {
      const action: EscrowAction = {
        id: 'eca_1',
        network: 'eip155:845320402',
        chainEpoch: 'epoch1',
        kind: 'capture',
        paymentInfoHash: hashOf(7).toUpperCase().replace('0X', '0x') as `0x${string}`,
        receiver: '0xSeller',
        token: '0xUSDC',
        payer: '0xPayer',
        escrow: '0xescrow',
        operator: '0xoperator',
        paymentInfo: { maxAmount: '10000' } as never,
        requested: '6000',
        fromBlock: '12',
        state: 'pending',
        transaction: null,
        fundingTransaction: null,
        amount: null,
        error: null,
        createdAt: at,
        resolvedAt: null,
      }
      await createEscrowActionStore(db).save(action)
      await saveEscrowAction(db, { ...action, id: 'eca_2', createdAt: '2026-12-01T00:00:01.000Z' }, 'proc_gone')
      const pending = await listPendingEscrowActions(db)
      expect(pending.map((row) => row.id)).toEqual(['eca_1', 'eca_2'])
      expect(pending[0]).toMatchObject({
        paymentInfo: { maxAmount: '10000' },
        paymentInfoHash: hashOf(7),
        receiver: '0xseller',
        requested: '6000',
      })
      expect((await listPendingEscrowActions(db, { owner: 'proc_gone' })).map((row) => row.id)).toEqual(['eca_2'])
      await saveEscrowAction(db, { ...action, state: 'settled', transaction: tx(30), amount: '6000', resolvedAt: at })
      expect((await listPendingEscrowActions(db)).map((row) => row.id)).toEqual(['eca_2'])
      const row = await db.selectFrom('escrow_actions').selectAll().where('id', '=', 'eca_1').executeTakeFirstOrThrow()
      expect(escrowActionOf(row)).toMatchObject({ state: 'settled', transaction: tx(30), amount: '6000' })
      expect(row.owner).not.toBeNull()
    } finally {
      await close()
    }
  })

  test("a seller's receiver authorizer: made on first use, the same ever after (racing first uses too), encrypted at rest", async () => {
    const { db, close } = await databases.open()
    try {
      const secrets = { walletKey: randomBytes(32) }
      const [a, b] = await Promise.all([
        receiverAuthorizerOf({ db, secrets }, 'u1'),
        receiverAuthorizerOf({ db, secrets }, 'u1'),
      ])
      expect(a.address).toBe(b.address)
      const rows = await db.selectFrom('receiver_authorizers').selectAll().execute()
      expect(rows).toHaveLength(1)
      expect(rows[0]?.address).toBe(a.address)
      // At rest the key is sealed by the install's wallet key: not the key itself, and it opens to this address.
      expect(rows[0]?.encrypted_private_key).not.toMatch(/^0x[0-9a-f]{64}$/)
      const key = decryptSecret(secrets.walletKey, rows[0]!.encrypted_private_key) as `0x${string}`
      expect(privateKeyToAccount(key).address).toBe(a.address)
      // Another process (a fresh cache) reads the same key; another seller gets another.
      const reopened = await receiverAuthorizerOf({ db: db.withTables<Pick<Database, 'users'>>(), secrets }, 'u1')
      expect(reopened.address).toBe(a.address)
      expect((await receiverAuthorizerOf({ db, secrets }, 'u2')).address).not.toBe(a.address)
      // Another install's wallet key cannot open it (so svc refuses rather than sign with a wrong key).
      await expect(
        receiverAuthorizerOf(
          { db: db.withTables<Pick<Database, 'users'>>(), secrets: { walletKey: randomBytes(32) } },
          'u1',
        ),
      ).rejects.toThrow()
    } finally {
      await close()
    }
  })
})
