/**
 * What the batch-settlement gateway tests share: the seller's batch accept and a buyer paying with `@x402/evm`'s own
 * batch-settlement client (through `@x402/fetch`), and reading a channel back from the chain.
 */
import { x402Client } from '@x402/core/client'
import { decodePaymentResponseHeader } from '@x402/core/http'
import { toClientEvmSigner } from '@x402/evm'
import { BatchSettlementEvmScheme as BatchClient } from '@x402/evm/batch-settlement/client'
import { wrapFetchWithPayment } from '@x402/fetch'
import {
  createPublicClient,
  createWalletClient,
  http,
  parseEventLogs,
  type Hex,
  type LocalAccount,
  type PublicClient,
} from 'viem'
import { batchSettlementAddresses } from '../../../chain/batch-settlement/contracts.js'
import { x402BatchSettlementAbi } from '../../../chain/contracts/x402-batch-settlement.generated.js'
import type { ChainServices } from '../../../chain/services.js'
import { localFetch } from '../../../sdk/local-fetch.js'
import type { TestServer } from '../../helpers/control.js'
import { post } from '../../helpers/crash-at.js'
import { newAccount } from '../../helpers/payments.js'
import type { SvcProcess } from '../../helpers/svc-process.js'
import { addEndpoint, createApi, type Api, type Seller } from './helpers.js'

/**
 * A batch-settlement accept of `price` units of the Sandbox USDC: a deposit of at least ten prices, the channel
 * manager claiming and settling every second (unless `extra` says otherwise).
 */
export const batchAccept = (services: ChainServices, price: bigint, extra: Record<string, unknown> = {}) =>
  batchAcceptOf(services.sandboxChain.usdc.address, price, extra)

/** {@link batchAccept} of the Sandbox USDC at `usdc` (a `svc up` process's `ready.usdc`). */
export const batchAcceptOf = (usdc: string, price: bigint, extra: Record<string, unknown> = {}) => ({
  scheme: 'batch-settlement',
  network: 'eip155:845320402',
  asset: usdc,
  amount: price.toString(),
  extra: { minDeposit: (10n * price).toString(), claimIntervalSeconds: 1, settleIntervalSeconds: 1, ...extra },
})

/**
 * A production API of `seller` in front of `upstreamUrl` whose GET `/weather/{city}` takes {@link batchAccept} at
 * `price`. A production accept names its token's EIP-712 domain itself (svc fills it in for the Sandbox only).
 */
export async function productionBatchApi(
  t: TestServer,
  services: ChainServices,
  seller: Seller,
  upstreamUrl: string,
  price: bigint,
): Promise<Api> {
  const api = await createApi(t, seller, upstreamUrl, 'production')
  const { name, version } = services.sandboxChain.usdc
  const accept = batchAccept(services, price)
  const endpoint = {
    method: 'GET',
    path_pattern: '/weather/{city}',
    accepts: [{ ...accept, extra: { ...accept.extra, name, version } }],
  }
  await addEndpoint(t, seller, api.id, endpoint, 'production')
  return api
}

/** A new buyer, its @x402/evm batch-settlement client scheme, and fetch paying with it. */
export function batchBuyer(services: ChainServices) {
  const buyer = newAccount()
  const scheme = new BatchClient(toClientEvmSigner(buyer, services.sandboxChain.client as never))
  const client = new x402Client().register('eip155:845320402', scheme).setSpendControls({ allowedAssets: true })
  return { buyer, scheme, pay: wrapFetchWithPayment(localFetch, client) }
}

/**
 * A new buyer of a `svc up` child process (test/helpers/svc-process.ts), given its USDC by the process's faucet, and
 * fetch paying with @x402/evm's batch-settlement client `scheme` over `chain`, the process's Sandbox chain.
 */
export async function processBatchBuyer(svc: SvcProcess) {
  const buyer = newAccount()
  const chain = createPublicClient({ transport: http(svc.ready.rpc_url) })
  await post(`${svc.ready.chain_manager_url}/faucet`, { address: buyer.address })
  const scheme = new BatchClient(toClientEvmSigner(buyer, chain))
  const client = new x402Client().register(svc.ready.network, scheme).setSpendControls({ allowedAssets: true })
  return { buyer, chain, scheme, pay: wrapFetchWithPayment(localFetch, client) }
}

/** The channel id a paid answer's PAYMENT-RESPONSE names. */
export const channelIdOf = (response: Response): Hex =>
  (
    decodePaymentResponseHeader(response.headers.get('payment-response')!).extra as {
      channelState: { channelId: Hex }
    }
  ).channelState.channelId

/** The deposit transaction a paid answer's PAYMENT-RESPONSE names (undefined for a voucher's, which names none). */
export const depositOf = (response: Response): Hex | undefined =>
  (decodePaymentResponseHeader(response.headers.get('payment-response')!).transaction as Hex) || undefined

/** A channel's balance and claimed total on chain. */
export const channelOnChain = (services: ChainServices, id: Hex) => channelOnChainAt(services.sandboxChain.client, id)

/** {@link channelOnChain} read through `client` (a `svc up` process's chain). */
export async function channelOnChainAt(client: Pick<PublicClient, 'readContract'>, id: Hex) {
  const [balance, totalClaimed] = await client.readContract({
    address: batchSettlementAddresses.settlement,
    abi: x402BatchSettlementAbi,
    functionName: 'channels',
    args: [id],
  })
  return { balance, totalClaimed }
}

/** The channel's config, as the contract logged it when the deposit `transaction` created the channel. */
export async function channelConfigOf(services: ChainServices, transaction: Hex) {
  const receipt = await services.sandboxChain.client.getTransactionReceipt({ hash: transaction })
  const [created] = parseEventLogs({ abi: x402BatchSettlementAbi, eventName: 'ChannelCreated', logs: receipt.logs })
  return created!.args.config
}

/** The buyer's own call of the contract (no svc in between: a unilateral withdrawal), mined: its transaction. */
export async function withdrawCall(
  services: ChainServices,
  buyer: LocalAccount,
  functionName: 'initiateWithdraw' | 'finalizeWithdraw',
  args: readonly unknown[],
): Promise<Hex> {
  const wallet = createWalletClient({ account: buyer, transport: http(services.sandboxChain.rpcUrl) })
  const { request } = await services.sandboxChain.client.simulateContract({
    account: buyer,
    address: batchSettlementAddresses.settlement,
    abi: x402BatchSettlementAbi,
    functionName,
    args: args as never,
  })
  const hash = await wallet.writeContract({ ...request, chain: null })
  await services.sandboxChain.client.waitForTransactionReceipt({ hash })
  return hash
}
