/**
 * Escrow payments (x402 auth-capture, issue 39) left half done by a process that died: at the next start, svc reads
 * the escrow's `paymentState` and Payment* logs and rebuilds its records. Until svc's gateway sends escrow payments
 * itself (issue 39 WP4), the dead process's part is played here: the holds and the capture are real transactions on
 * svc's Sandbox chain (the official `AuthCaptureEvmScheme` client signs, the operator account sends), and the rows it
 * had written are the ones the gateway and the facilitator write (a journal row per collect in flight, a pending escrow
 * action per transaction sent). Then `svc up` starts again on the data dir and the rows are checked:
 * - a collect that landed without its record (killed at `settlement-record`): the payment and its settlement are
 *   recorded, marked undelivered; a deferred hold stays authorized, a sync hold is voided by the facilitator;
 * - a capture that landed without its record (killed at `escrow-action-capture`): the action is settled with its
 *   transaction and amount, the payment captured, its settlement's amount captured − refunded;
 * - an action that never reached the chain: failed; and a second start changes nothing (nothing lost or doubled).
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { PaymentRequirements } from '@x402/core/types'
import { x402Client } from '@x402/core/client'
import { AuthCaptureEvmScheme } from '@x402/evm/auth-capture/client'
import { wrapFetchWithPayment } from '@x402/fetch'
import {
  type Address,
  createPublicClient,
  createWalletClient,
  defineChain,
  type Hex,
  http,
  type PrivateKeyAccount,
  zeroAddress,
} from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { afterAll, expect, test } from 'vitest'
import { devAccountKeys } from '../../../chain/constants.js'
import { authCaptureEscrowAbi } from '../../../chain/contracts/index.js'
import { offeredEscrow, packageDeployment } from '../../../core/auth-capture/deployments.js'
import { paymentInfoHash } from '../../../core/auth-capture/hashes.js'
import type { PaymentInfo } from '../../../core/auth-capture/types.js'
import { loadInstallSecrets } from '../../../server/data-dir/secrets.js'
import { openDatabase } from '../../../server/db/database.js'
import {
  escrowDb,
  findEscrowPaymentByHash,
  findLatestChainEpoch,
  listEscrowActions,
  listEscrowTransactions,
  saveEscrowAction,
} from '../../../server/db/index.js'
import type { EscrowJournalEntry } from '../../../server/db/escrow-tables.js'
import { recordEscrowCollect } from '../../../server/escrow/index.js'
import { receiverAuthorizerOf } from '../../../server/escrow/keys.js'
import { localFetch } from '../../../sdk/local-fetch.js'
import { killAt, seedApiWith, seedSeller, startSeeded, usdcBalance } from '../../helpers/crash-at.js'
import { testJournalRow } from '../../helpers/journal-rows.js'
import { postJson } from '../../helpers/payments.js'
import type { SvcProcess } from '../../helpers/svc-process.js'

const dataDir = mkdtempSync(join(tmpdir(), 'svc-escrow-crash-'))
const running: SvcProcess[] = []

afterAll(async () => {
  await Promise.all(running.map((svc) => svc.stop()))
  rmSync(dataDir, { recursive: true, force: true })
})

/** svc's facilitator's operator: relayer account 1, which sends every escrow transaction. */
const operator = privateKeyToAccount(devAccountKeys.relayer)
const dead = 'proc_dead'
const price = 2_500n

/** The seed's seller, its weather API and endpoint, the chain epoch, and the seller's receiver-authorizer key. */
async function sellerOf(email: string) {
  const database = await openDatabase(join(dataDir, 'svc.sqlite'))
  try {
    const db = database.db
    const user = await db.selectFrom('users').select('id').where('email', '=', email).executeTakeFirstOrThrow()
    const api = await db
      .selectFrom('apis')
      .select('id')
      .where('user_id', '=', user.id)
      .where('slug', '=', 'weather')
      .executeTakeFirstOrThrow()
    const endpoint = await db
      .selectFrom('endpoints')
      .select('id')
      .where('api_id', '=', api.id)
      .executeTakeFirstOrThrow()
    const key = await receiverAuthorizerOf({ db, secrets: loadInstallSecrets(dataDir) }, user.id)
    return { userId: user.id, apiId: api.id, endpointId: endpoint.id, receiverAuthorizer: key.address }
  } finally {
    await database.close()
  }
}

type Seller = Awaited<ReturnType<typeof sellerOf>>
type Held = {
  info: PaymentInfo
  hash: Hex
  saltNonce: Hex
  validBefore: string
  nonce: Hex
  collect: Hex
  captureMode: 'sync' | 'deferred'
}

test('holds and a capture that landed while svc was dead are recorded from the chain at the next start; a sync hold is voided', {
  timeout: 180_000,
}, async () => {
  // 1. The seed's seller and its key (made as svc makes it on the seller's first auth-capture endpoint).
  const first = await startSeeded(running, dataDir)
  const email = first.ready.seed.email as string
  await first.stop()
  const seller: Seller = await sellerOf(email)

  // 2. The dead process's transactions: three holds signed by the official client and sent by the operator, and a
  //    partial capture of the third.
  const svc = await startSeeded(running, dataDir)
  const chainId = Number(String(svc.ready.network).split(':')[1])
  const chain = defineChain({
    id: chainId,
    name: 'sandbox',
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [svc.ready.rpc_url] } },
  })
  const client = createPublicClient({ chain, transport: http(svc.ready.rpc_url) })
  const wallet = createWalletClient({ account: operator, chain, transport: http(svc.ready.rpc_url) })
  const send = async (functionName: 'authorize' | 'capture', args: readonly unknown[]) => {
    const hash = await wallet.writeContract({
      address: offeredEscrow,
      abi: authCaptureEscrowAbi,
      functionName,
      args: args as never,
    })
    const receipt = await client.waitForTransactionReceipt({ hash })
    expect(receipt.status).toBe('success')
    return hash
  }
  const stateOf = async (hash: Hex, on = client) => {
    const [, capturable, refundable] = await on.readContract({
      address: offeredEscrow,
      abi: authCaptureEscrowAbi,
      functionName: 'paymentState',
      args: [hash],
    })
    return { capturable: BigInt(capturable), refundable: BigInt(refundable) }
  }
  const payTo = privateKeyToAccount(generatePrivateKey()).address
  const now = Math.floor(Date.now() / 1000)
  const requirements: PaymentRequirements = {
    scheme: 'auth-capture',
    network: svc.ready.network,
    amount: price.toString(),
    asset: svc.ready.usdc,
    payTo,
    maxTimeoutSeconds: 300,
    extra: {
      name: 'USDC',
      version: '2',
      captureAuthorizer: operator.address,
      receiverAuthorizer: seller.receiverAuthorizer,
      authCaptureEscrow: offeredEscrow,
      captureDeadline: now + 3_600,
      refundDeadline: now + 7_200,
      minFeeBps: 0,
      maxFeeBps: 0,
      feeRecipient: zeroAddress,
    },
  }
  const { name, version } = await usdcDomain(svc.ready.usdc, client)
  Object.assign(requirements.extra, { name, version })

  async function hold(captureMode: Held['captureMode']): Promise<Held> {
    const payer = privateKeyToAccount(generatePrivateKey()) as PrivateKeyAccount
    expect((await postJson(`${svc.ready.chain_manager_url}/faucet`, { address: payer.address })).status).toBe(200)
    const { payload } = await new AuthCaptureEvmScheme(payer).createPaymentPayload(2, {
      ...requirements,
      extra: { ...requirements.extra, captureMode },
    })
    const wire = payload as unknown as {
      authorization: { validBefore: string; nonce: Hex }
      signature: Hex
      salt: Hex
      saltNonce: Hex
    }
    const info: PaymentInfo = {
      operator: operator.address,
      payer: payer.address,
      receiver: payTo,
      token: svc.ready.usdc,
      maxAmount: price.toString(),
      preApprovalExpiry: Number(wire.authorization.validBefore),
      authorizationExpiry: now + 3_600,
      refundExpiry: now + 7_200,
      minFeeBps: 0,
      maxFeeBps: 0,
      feeReceiver: zeroAddress,
      salt: wire.salt,
    }
    const onChain = { ...info, maxAmount: price, salt: BigInt(info.salt) }
    const collect = await send('authorize', [onChain, price, packageDeployment.eip3009Collector, wire.signature])
    const hash = paymentInfoHash(chainId, offeredEscrow, info)
    expect(await stateOf(hash)).toEqual({ capturable: price, refundable: 0n })
    return {
      info,
      hash,
      saltNonce: wire.saltNonce,
      validBefore: wire.authorization.validBefore,
      nonce: wire.authorization.nonce,
      collect,
      captureMode,
    }
  }
  const syncHold = await hold('sync')
  const deferredHold = await hold('deferred')
  const captured = await hold('deferred')
  const fromBlock = (await client.getBlockNumber()).toString()
  const onChainInfo = { ...captured.info, maxAmount: price, salt: BigInt(captured.info.salt) }
  const capture = await send('capture', [onChainInfo, 600n, 0n, zeroAddress])
  await svc.stop()

  // 3. The rows the dead process had written: journal rows of the two collects in flight, the third payment's
  //    record (its request was answered), and the pending actions of its capture and of a void it never sent.
  const database = await openDatabase(join(dataDir, 'svc.sqlite'))
  let epoch: string
  try {
    const db = database.db
    epoch = (await findLatestChainEpoch(db))!.epoch
    const columns = (held: Held) => ({
      api_id: seller.apiId,
      endpoint_id: seller.endpointId,
      user_id: seller.userId,
      network: svc.ready.network,
      asset: svc.ready.usdc.toLowerCase(),
      amount: price.toString(),
      payer: held.info.payer.toLowerCase(),
      pay_to: payTo.toLowerCase(),
      transfer_method: 'eip3009' as const,
      nonce: held.nonce,
      valid_before: held.validBefore,
      method: 'GET',
      path: '/weather/paris',
      chain_epoch: epoch,
      owner: dead,
      state: 'settling' as const,
    })
    const entry = (held: Held): EscrowJournalEntry => ({
      kind: 'authorize',
      paymentInfoHash: held.hash,
      paymentInfo: held.info,
      saltNonce: held.saltNonce,
      captureMode: held.captureMode,
      escrow: offeredEscrow,
      receiverAuthorizer: seller.receiverAuthorizer,
    })
    for (const held of [syncHold, deferredHold])
      await escrowDb(db)
        .insertInto('settlement_journal')
        .values({ ...testJournalRow(held.hash.slice(2, 18), columns(held)), escrow: JSON.stringify(entry(held)) })
        .execute()
    const settlementId = 'stl_escrow_captured'
    await db
      .insertInto('settlements')
      .values({
        id: settlementId,
        api_id: seller.apiId,
        endpoint_id: seller.endpointId,
        user_id: seller.userId,
        environment: 'development',
        network: svc.ready.network,
        asset: svc.ready.usdc.toLowerCase(),
        amount: '0',
        payer: captured.info.payer.toLowerCase(),
        pay_to: payTo.toLowerCase(),
        transaction: captured.collect,
        method: 'GET',
        path: '/weather/paris',
        created_at: new Date().toISOString(),
        chain_epoch: epoch,
        delivered: 1,
        builder_code: null,
      })
      .execute()
    await recordEscrowCollect(
      db,
      {
        chain_epoch: epoch,
        payment_info_hash: captured.hash,
        user_id: seller.userId,
        api_id: seller.apiId,
        endpoint_id: seller.endpointId,
        environment: 'development',
        network: svc.ready.network,
        asset: svc.ready.usdc.toLowerCase(),
        payer: captured.info.payer.toLowerCase(),
        pay_to: payTo.toLowerCase(),
        method: 'GET',
        path: '/weather/paris',
        flow: 'escrow',
        capture_mode: 'deferred',
        transfer_method: 'eip3009',
        escrow: offeredEscrow,
        operator: operator.address,
        receiver_authorizer: seller.receiverAuthorizer,
        payment_info: JSON.stringify(captured.info),
        salt_nonce: captured.saltNonce,
        pre_approval_expiry: captured.info.preApprovalExpiry,
        capture_deadline: captured.info.authorizationExpiry,
        refund_deadline: captured.info.refundExpiry,
        delivered: 1,
      },
      { kind: 'authorize', amount: price.toString(), transaction: captured.collect, actor: 'gateway' },
      settlementId,
    )
    const action = (id: string, kind: 'capture' | 'void', amount: string) => ({
      id,
      network: svc.ready.network,
      chainEpoch: epoch,
      kind,
      paymentInfoHash: captured.hash,
      receiver: payTo,
      token: svc.ready.usdc,
      payer: captured.info.payer,
      escrow: offeredEscrow,
      operator: operator.address,
      paymentInfo: captured.info,
      requested: amount,
      fromBlock,
      state: 'pending' as const,
      transaction: null,
      fundingTransaction: null,
      amount: null,
      error: null,
      createdAt: new Date().toISOString(),
      resolvedAt: null,
    })
    await saveEscrowAction(db, action('eca_capture', 'capture', '600'), dead)
    await saveEscrowAction(db, action('eca_void', 'void', '1900'), dead)
  } finally {
    await database.close()
  }

  // 4. svc starts again on the data dir: recovery resolves it all before it is ready.
  const again = await startSeeded(running, dataDir)
  const restarted = createPublicClient({ chain, transport: http(again.ready.rpc_url) })
  const afterRestart = await stateOf(syncHold.hash, restarted)
  expect(await stateOf(deferredHold.hash, restarted)).toEqual({ capturable: price, refundable: 0n })
  expect(await stateOf(captured.hash, restarted)).toEqual({ capturable: 1_900n, refundable: 600n })
  await again.stop()
  const log = again.stderr()

  const check = async () => {
    const opened = await openDatabase(join(dataDir, 'svc.sqlite'))
    try {
      const db = opened.db
      const settlementOf = (id: string | null) =>
        escrowDb(db)
          .selectFrom('settlements')
          .select(['amount', 'delivered', 'escrow_id', 'transaction'])
          .where('id', '=', id ?? '')
          .executeTakeFirstOrThrow()
      const journal = await db.selectFrom('settlement_journal').select('id').execute()
      const transactionsOf = async (id: string) =>
        (await listEscrowTransactions(db, id)).map((row) => [row.kind, row.amount, row.transaction, row.actor])

      // The deferred collect: recorded from its log, undelivered, still authorized (the seller decides).
      const deferred = (await findEscrowPaymentByHash(db, epoch, deferredHold.hash))!
      expect(deferred).toMatchObject({ state: 'authorized', authorized: '2500', capturable: '2500', delivered: 0 })
      expect(deferred).toMatchObject({ capture_mode: 'deferred', salt_nonce: deferredHold.saltNonce })
      expect(await settlementOf(deferred.settlement_id)).toEqual({
        amount: '0',
        delivered: 0,
        escrow_id: deferred.id,
        transaction: deferredHold.collect,
      })
      expect(await transactionsOf(deferred.id)).toEqual([['authorize', '2500', deferredHold.collect, 'recovery']])

      // The sync collect: recorded, undelivered, its hold voided through svc's facilitator (a void signed by the
      // seller's receiver authorizer): back to the buyer.
      const sync = (await findEscrowPaymentByHash(db, epoch, syncHold.hash))!
      expect(sync).toMatchObject({ authorized: '2500', delivered: 0, capture_mode: 'sync' })
      expect(await settlementOf(sync.settlement_id)).toMatchObject({ amount: '0', delivered: 0, escrow_id: sync.id })
      expect(afterRestart).toEqual({ capturable: 0n, refundable: 0n })
      expect(sync).toMatchObject({ state: 'voided', voided: '2500', capturable: '0' })
      expect((await transactionsOf(sync.id)).map((row) => [row[0], row[3]])).toEqual([
        ['authorize', 'recovery'],
        ['void', 'recovery'],
      ])
      expect(log).toContain(`the hold of the escrow payment ${sync.id} (GET /weather/paris)`)

      // The capture: its action settled with the transaction and amount of its log, the payment captured, the
      // settlement's amount captured − refunded; the void that never reached the chain failed.
      const actions = await listEscrowActions(db, captured.hash)
      expect(actions.find((row) => row.id === 'eca_capture')).toMatchObject({
        state: 'settled',
        transaction: capture,
        amount: '600',
      })
      expect(actions.find((row) => row.id === 'eca_void')).toMatchObject({
        state: 'failed',
        error: 'svc stopped before it reached the chain',
      })
      const paid = (await findEscrowPaymentByHash(db, epoch, captured.hash))!
      expect(paid).toMatchObject({ state: 'authorized', captured: '600', capturable: '1900', refundable: '600' })
      expect(paid.delivered).toBe(1)
      expect((await settlementOf(paid.settlement_id)).amount).toBe('600')
      expect(await transactionsOf(paid.id)).toEqual([
        ['authorize', '2500', captured.collect, 'gateway'],
        ['capture', '600', capture, 'recovery'],
      ])
      // Nothing left in the journal; one settlement per payment.
      expect(journal).toEqual([])
      const settlements = await escrowDb(db)
        .selectFrom('settlements')
        .select('escrow_id')
        .where('escrow_id', 'is not', null)
        .execute()
      expect(settlements).toHaveLength(3)
      return {
        rows: await db.selectFrom('escrow_transactions').selectAll().orderBy('id').execute(),
        payments: await db.selectFrom('escrow_payments').selectAll().orderBy('id').execute(),
      }
    } finally {
      await opened.close()
    }
  }
  const before = await check()

  // 5. Another start finds nothing left to do: nothing is recorded twice.
  const third = await startSeeded(running, dataDir)
  await third.stop()
  const after = await check()
  expect(after.rows).toEqual(before.rows)
  expect(after.payments.map(({ updated_at: _, ...row }) => row)).toEqual(
    before.payments.map(({ updated_at: _, ...row }) => row),
  )
})

test('a refund killed after its funding loses nothing: the funding goes back to the receiver; killed after the refund, it is recorded once', {
  timeout: 240_000,
}, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-escrow-refund-crash-'))
  try {
    // 1. svc stops at the refund's funding (the receiver's transfer to the operator is on the chain, the refund not
    //    sent): a deferred payment through svc's gateway, a part captured by the seller, then a refund, killed there.
    const svc = await startSeeded(running, dir, 'escrow-action-refund-funded')
    const receiver = privateKeyToAccount(generatePrivateKey()).address
    const { call, api } = await seedApiWith(svc, 'booking', receiver, [
      {
        scheme: 'auth-capture',
        network: svc.ready.network,
        asset: svc.ready.usdc,
        amount: '10000',
        max_timeout_seconds: 300,
        extra: { captureMode: 'deferred' },
      },
    ])
    const buyer = privateKeyToAccount(generatePrivateKey())
    expect((await postJson(`${svc.ready.chain_manager_url}/faucet`, { address: buyer.address })).status).toBe(200)
    const start = await usdcBalance(svc, buyer.address)
    const payer = new x402Client().register(svc.ready.network as never, new AuthCaptureEvmScheme(buyer))
    payer.setSpendControls({
      allowedAssets: [{ network: svc.ready.network as never, asset: svc.ready.usdc, maxAmountPerPayment: '1000000' }],
    })
    const paid = await wrapFetchWithPayment(localFetch, payer)(`${api.gateway_url}/weather/oslo`)
    expect(paid.status, await paid.clone().text()).toBe(200)
    const [payment] = (await call('GET', '/payments')).payments
    await call('POST', `/payments/${payment.id}/capture`, { amount: '6000' })
    const operatorBefore = await usdcBalance(svc, operator.address)
    const refund = () => call('POST', `/payments/${payment.id}/refund`, { amount: '1000' }).catch(() => undefined)
    void refund()
    await killAt(svc, dir, 'escrow-action-refund-funded')

    // 2. The next start returns the funding before it is ready: the receiver has all it was paid, the operator
    //    nothing of it, the escrow still refundable; the action failed, naming its funding. svc stops next at the
    //    retried refund's own transaction (on the chain, not journaled, not recorded).
    const again = await startSeeded(running, dir, 'escrow-action-refund')
    expect(again.stderr()).toContain('was funded but never sent: its funding went back to the receiver')
    expect(await usdcBalance(again, receiver)).toBe(6_000n)
    expect(await usdcBalance(again, operator.address)).toBe(operatorBefore)
    const seller = await seedSeller(again)
    const shown = await seller('GET', `/payments/${payment.id}`)
    expect(shown.payment).toMatchObject({ captured: '6000', refunded: '0', refundable: '6000' })
    expect(shown.transactions.map((row: { kind: string }) => row.kind)).toEqual(['authorize', 'capture'])
    void seller('POST', `/payments/${payment.id}/refund`, { amount: '1000' }).catch(() => undefined)
    await killAt(again, dir, 'escrow-action-refund')

    // 3. The refund is on the chain without its record: the next start records it once, as recovery's; the receiver
    //    funded it once, the buyer has it back.
    const third = await startSeeded(running, dir)
    const after = await (await seedSeller(third))('GET', `/payments/${payment.id}`)
    expect(after.payment).toMatchObject({ captured: '6000', refunded: '1000', refundable: '5000', capturable: '4000' })
    expect(
      after.transactions.map((row: { kind: string; amount: string; actor: string }) => [
        row.kind,
        row.amount,
        row.actor,
      ]),
    ).toEqual([
      ['authorize', '10000', 'gateway'],
      ['capture', '6000', 'seller'],
      ['refund', '1000', 'recovery'],
    ])
    expect(await usdcBalance(third, receiver)).toBe(5_000n)
    expect(await usdcBalance(third, operator.address)).toBe(operatorBefore)
    expect(start - (await usdcBalance(third, buyer.address))).toBe(10_000n - 1_000n)
    await third.stop()
    const opened = await openDatabase(join(dir, 'svc.sqlite'))
    try {
      const actions = (await listEscrowActions(opened.db, payment.payment_info_hash)).filter(
        (row) => row.kind === 'refund',
      )
      expect(actions.map((row) => [row.state, row.amount, row.error])).toEqual([
        [
          'failed',
          null,
          "svc stopped between the refund's funding and the refund: the funding went back to the receiver",
        ],
        ['settled', '1000', null],
      ])
      expect(actions.every((row) => row.fundingTransaction !== null)).toBe(true)
      expect(new Set(actions.map((row) => row.fundingTransaction)).size).toBe(2)
    } finally {
      await opened.close()
    }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
})

/** The Sandbox USDC's EIP-712 name and version, as the chain has them. */
async function usdcDomain(usdc: Address, client: ReturnType<typeof createPublicClient>) {
  const abi = [
    { type: 'function', name: 'name', stateMutability: 'view', inputs: [], outputs: [{ type: 'string' }] },
    { type: 'function', name: 'version', stateMutability: 'view', inputs: [], outputs: [{ type: 'string' }] },
  ] as const
  const [name, version] = await Promise.all([
    client.readContract({ address: usdc, abi, functionName: 'name' }),
    client.readContract({ address: usdc, abi, functionName: 'version' }),
  ])
  return { name, version }
}
