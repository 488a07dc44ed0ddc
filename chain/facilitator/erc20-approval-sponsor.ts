import {
  createErc20ApprovalGasSponsoringExtension,
  type Erc20ApprovalGasSponsoringFacilitatorExtension,
  type TransactionRequest,
} from '@x402/extensions'
import { x402UptoPermit2ProxyABI } from '@x402/evm'
import {
  decodeFunctionData,
  keccak256,
  parseTransaction,
  recoverTransactionAddress,
  type Address,
  type Hash,
  type Hex,
  type TransactionSerialized,
} from 'viem'
import type { SandboxChain } from '../sandbox-chain.js'
import { checkApprovalOnChain, isKnownTransaction } from './erc20-approval-checks.js'
import type { RelaySigner } from '../relay/index.js'

/**
 * The text `@x402/evm` looks for in a failed settlement's error to answer `erc20_approval_broadcast_failed`
 * (its ErrErc20ApprovalTxFailed).
 */
const approvalFailed = 'erc20_approval_tx_failed'

/**
 * The `erc20ApprovalGasSponsoring` extension for svc's facilitator: `@x402/evm`'s exact and upto schemes validate
 * the buyer's signed `approve(Permit2, …)` and hand it, with the settlement call, to this signer's
 * `sendTransactions`, which runs them in order: the buyer's gas first when the buyer holds too little ETH for the
 * approval (a transfer from a relayer, as x402's extension spec says), the approval as signed (broadcast raw, mined,
 * required to succeed), then the settlement from a relayer.
 *
 * The spec asks for an atomic bundle, against someone front-running between the funding and the settlement; on the
 * Sandbox the facilitator is the chain's only miner (svc's miner, or Anvil's automine), so the steps run one after
 * the other, each mined before the next is sent.
 */
export function createApprovalSponsoring(
  chain: SandboxChain,
  signer: RelaySigner,
): Erc20ApprovalGasSponsoringFacilitatorExtension {
  /** The approval being sent for each payer: two payments signing the same approval send it once, one at a time. */
  const sending = new Map<Address, Promise<Hash>>()

  function broadcastApproval(serialized: Hex): Promise<Hash> {
    const run = async () => {
      const tx = parseTransaction(serialized)
      const from = await recoverTransactionAddress({ serializedTransaction: serialized as TransactionSerialized })
      const before = sending.get(from)
      const mine = (async () => {
        await before?.catch(() => undefined)
        return sendApproval(from, tx, serialized)
      })()
      sending.set(from, mine)
      try {
        return await mine
      } finally {
        if (sending.get(from) === mine) sending.delete(from)
      }
    }
    return run().catch((error) => {
      throw new Error(`${approvalFailed}: ${(error as Error).message}`)
    })
  }

  /** The buyer's gas if it lacks it, then the approval as signed, mined; one the chain already has is not sent again. */
  async function sendApproval(from: Address, tx: ReturnType<typeof parseTransaction>, serialized: Hex): Promise<Hash> {
    let hash = keccak256(serialized)
    if (!(await isKnownTransaction(chain.client, hash))) {
      // Judged again now, just before ETH moves: the buyer may have used the approval's nonce since it was checked
      // (the settle after a verify reuses the verify's verdict, facilitator.ts).
      const refused = await checkApprovalOnChain(chain.client, serialized, tx, from)
      if (refused) throw new Error(`${refused.reason}: ${refused.message}`)
      const cost = (tx.gas ?? 0n) * (tx.maxFeePerGas ?? tx.gasPrice ?? 0n) + (tx.value ?? 0n)
      const balance = await chain.client.getBalance({ address: from })
      if (balance < cost) await signer.fund(from, cost - balance)
      const sent = chain.client.request({ method: 'eth_sendRawTransaction', params: [serialized] })
      const mined = chain.mine(sent)
      hash = await sent
      await mined
    }
    const receipt = await chain.client.waitForTransactionReceipt({ hash, pollingInterval: 20 })
    if (receipt.status !== 'success') throw new Error(`the approval ${hash} reverted`)
    return hash
  }

  /** The settlement, from the relayer an upto witness names (x402's upto proxy takes it from that one only). */
  function sendSettlement(to: Address, data: Hex): Promise<Hash> {
    const facilitator = uptoFacilitatorOf(data)
    return facilitator ? signer.sendFrom(facilitator, to, data) : signer.sendTransaction({ to, data })
  }

  return createErc20ApprovalGasSponsoringExtension({
    getAddresses: () => signer.getAddresses(),
    readContract: (args) => signer.readContract(args),
    verifyTypedData: (args) => signer.verifyTypedData(args),
    writeContract: (args) => signer.writeContract(args),
    sendTransaction: (args) => signer.sendTransaction(args),
    waitForTransactionReceipt: (args) => signer.waitForTransactionReceipt(args),
    getCode: (args) => signer.getCode(args),
    async sendTransactions(transactions: TransactionRequest[]) {
      const hashes: Hash[] = []
      for (const tx of transactions)
        hashes.push(typeof tx === 'string' ? await broadcastApproval(tx) : await sendSettlement(tx.to, tx.data))
      return hashes
    },
  })
}

/** The `facilitator` of an upto proxy `settle` call's witness; undefined for any other call (exact's settle). */
function uptoFacilitatorOf(data: Hex): Address | undefined {
  try {
    const { args } = decodeFunctionData({ abi: x402UptoPermit2ProxyABI, data })
    for (const arg of args ?? []) {
      const named = (arg as { facilitator?: unknown } | null)?.facilitator
      if (typeof named === 'string') return named as Address
    }
  } catch {
    // Not an upto settle: any relayer sends it.
  }
  return undefined
}
