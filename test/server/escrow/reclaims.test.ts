/**
 * The reclaim sweep (server/escrow/reclaims.ts) on a real Anvil and a real database: holds authorized by the operator
 * with payloads of the official `AuthCaptureEvmScheme` client; after the capture deadline (the chain's time and svc's
 * clock moved together, as `svc time advance` does) the buyers reclaim on their own, and the sweep records each reclaim
 * as the payer's, with its transaction, and leaves a hold nobody reclaimed as it is. Before the deadline it reads
 * nothing on chain.
 */
import type { PaymentRequirements } from '@x402/core/types'
import { AuthCaptureEvmScheme } from '@x402/evm/auth-capture/client'
import { createWalletClient, type Hex, http, parseEther, type PrivateKeyAccount, zeroAddress } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, expect, test, vi } from 'vitest'
import { authCaptureEscrowAbi } from '../../../chain/contracts/index.js'
import type { SandboxChain } from '../../../chain/sandbox-chain.js'
import { startChain } from '../../../chain/start-chain.js'
import { offeredEscrow, packageDeployment } from '../../../core/auth-capture/deployments.js'
import { paymentInfoHash } from '../../../core/auth-capture/hashes.js'
import type { PaymentInfo } from '../../../core/auth-capture/types.js'
import { createClock } from '../../../core/clock.js'
import { findEscrowPayment, listEscrowTransactions } from '../../../server/db/index.js'
import {
  type EscrowDeps,
  type RecordedReclaim,
  recordEscrowCollect,
  applyEscrowStep,
  startReclaimSweep,
  sweepReclaims,
} from '../../../server/escrow/index.js'
import { testDatabases } from '../../helpers/postgres.js'

let chain: SandboxChain
const databases = testDatabases('sqlite')

beforeAll(async () => {
  chain = await startChain()
}, 60_000)
afterAll(async () => {
  await chain?.stop()
})

test('buyers who reclaimed after the capture deadline are recorded by the sweep; a hold nobody reclaimed stays', {
  timeout: 120_000,
}, async () => {
  const { db, close } = await databases.open()
  const clock = createClock()
  const deps = { db, clock, chain: { sandboxChain: chain, twins: [] }, log: () => {} } as unknown as EscrowDeps
  const operator = chain.accounts.relayer
  const walletOf = (account: PrivateKeyAccount) =>
    createWalletClient({ account, chain: chain.chain, transport: http(chain.rpcUrl) })
  const send = async (from: PrivateKeyAccount, functionName: string, args: readonly unknown[]) => {
    const hash = await walletOf(from).writeContract({
      address: offeredEscrow,
      abi: authCaptureEscrowAbi,
      functionName: functionName as never,
      args: args as never,
    })
    expect((await chain.client.waitForTransactionReceipt({ hash })).status).toBe('success')
    return hash
  }
  const now = Number((await chain.client.getBlock()).timestamp)
  const captureDeadline = now + 600
  try {
    /** A hold of 2,500 by a new payer, authorized by the operator and recorded as the gateway records it. */
    async function hold() {
      const payer = privateKeyToAccount(generatePrivateKey())
      await chain.testClient.setBalance({ address: payer.address, value: parseEther('1') })
      await chain.usdcFunder.fund(payer.address, 10_000n)
      const requirements: PaymentRequirements = {
        scheme: 'auth-capture',
        network: chain.network,
        amount: '2500',
        asset: chain.usdc.address,
        payTo: privateKeyToAccount(generatePrivateKey()).address,
        maxTimeoutSeconds: 300,
        extra: {
          name: chain.usdc.name,
          version: chain.usdc.version,
          captureAuthorizer: operator.address,
          captureDeadline,
          refundDeadline: now + 1_200,
          minFeeBps: 0,
          maxFeeBps: 0,
          feeRecipient: zeroAddress,
          captureMode: 'deferred',
        },
      }
      const { payload } = await new AuthCaptureEvmScheme(payer).createPaymentPayload(2, requirements)
      const wire = payload as unknown as { authorization: { validBefore: string }; signature: Hex; salt: Hex }
      const info: PaymentInfo = {
        operator: operator.address,
        payer: payer.address,
        receiver: requirements.payTo as Hex,
        token: chain.usdc.address,
        maxAmount: '2500',
        preApprovalExpiry: Number(wire.authorization.validBefore),
        authorizationExpiry: captureDeadline,
        refundExpiry: now + 1_200,
        minFeeBps: 0,
        maxFeeBps: 0,
        feeReceiver: zeroAddress,
        salt: wire.salt,
      }
      const onChain = { ...info, maxAmount: 2_500n, salt: BigInt(info.salt) }
      const collect = await send(operator, 'authorize', [
        onChain,
        2_500n,
        packageDeployment.eip3009Collector,
        wire.signature,
      ])
      const { payment } = await recordEscrowCollect(
        db,
        {
          chain_epoch: chain.epoch,
          payment_info_hash: paymentInfoHash(chain.chainId, offeredEscrow, info),
          user_id: 'u1',
          api_id: 'a1',
          endpoint_id: null,
          environment: 'development',
          network: chain.network,
          asset: chain.usdc.address,
          payer: payer.address,
          pay_to: info.receiver,
          method: 'GET',
          path: '/job',
          flow: 'escrow',
          capture_mode: 'deferred',
          transfer_method: 'eip3009',
          escrow: offeredEscrow,
          operator: operator.address,
          receiver_authorizer: zeroAddress,
          payment_info: JSON.stringify(info),
          salt_nonce: null,
          pre_approval_expiry: info.preApprovalExpiry,
          capture_deadline: captureDeadline,
          refund_deadline: info.refundExpiry,
          delivered: 1,
        },
        { kind: 'authorize', amount: '2500', transaction: collect, actor: 'gateway' },
      )
      return { payer, onChain, payment }
    }
    const whole = await hold()
    const partial = await hold()
    const kept = await hold()
    // The seller captured 1,000 of the second hold before its deadline.
    const capture = await send(operator, 'capture', [partial.onChain, 1_000n, 0n, zeroAddress])
    await applyEscrowStep(db, partial.payment, {
      kind: 'capture',
      amount: '1000',
      transaction: capture,
      actor: 'seller',
    })

    // Before the deadline, nothing is due: the sweep reads nothing on chain.
    const reads = vi.spyOn(chain.client, 'readContract')
    expect(await sweepReclaims(deps)).toEqual([])
    expect(reads).not.toHaveBeenCalled()
    reads.mockRestore()

    // svc time advance past the deadline: the chain's time and svc's clock move together.
    await chain.testClient.increaseTime({ seconds: 700 })
    await chain.testClient.mine({ blocks: 1 })
    clock.setOffset(700_000)
    const reclaimWhole = await send(whole.payer, 'reclaim', [whole.onChain])
    const reclaimRest = await send(partial.payer, 'reclaim', [partial.onChain])

    const told: RecordedReclaim[] = []
    const sweep = startReclaimSweep(deps, { everyMs: 50, onReclaimed: (reclaim) => told.push(reclaim) })
    try {
      await vi.waitFor(() => expect(told).toHaveLength(2), { timeout: 30_000, interval: 50 })
    } finally {
      await sweep.stop()
    }
    expect(
      told.map((reclaim) => [reclaim.payment.id, reclaim.transaction.transaction, reclaim.transaction.actor]),
    ).toEqual(
      expect.arrayContaining([
        [whole.payment.id, reclaimWhole, 'payer'],
        [partial.payment.id, reclaimRest, 'payer'],
      ]),
    )
    expect(await findEscrowPayment(db, whole.payment.id)).toMatchObject({
      state: 'reclaimed',
      reclaimed: '2500',
      capturable: '0',
    })
    expect(await findEscrowPayment(db, partial.payment.id)).toMatchObject({
      state: 'captured',
      captured: '1000',
      reclaimed: '1500',
      capturable: '0',
    })
    expect(
      (await listEscrowTransactions(db, partial.payment.id)).map((row) => [row.kind, row.amount, row.actor]),
    ).toEqual([
      ['authorize', '2500', 'gateway'],
      ['capture', '1000', 'seller'],
      ['reclaim', '1500', 'payer'],
    ])
    // The hold nobody reclaimed is still held on chain and in the record; sweeping again records nothing more.
    expect(await findEscrowPayment(db, kept.payment.id)).toMatchObject({ state: 'authorized', capturable: '2500' })
    expect(await sweepReclaims(deps)).toEqual([])
    expect(await listEscrowTransactions(db, whole.payment.id)).toHaveLength(2)
  } finally {
    await close()
  }
})
