import { type Address, type Hex, parseAbiItem, type PublicClient } from 'viem'
import { type EscrowAction, readPaymentState } from '../../chain/auth-capture/index.js'
import type { PaymentState } from '../../core/auth-capture/types.js'
import type { SandboxChain } from '../../chain/sandbox-chain.js'
import { toSvcError } from '../../core/errors.js'
import {
  deleteJournalRow,
  escrowActionFundedBy,
  type EscrowJournalEntry,
  type EscrowPaymentRow,
  findEscrowPaymentByHash,
  listEscrowActions,
  listPendingEscrowActions,
  markEscrowUndelivered,
  markJournalUndelivered,
  processOwnerOf,
  recordJournalSettlement,
  saveEscrowAction,
  type SettlementJournalRow,
  type SettlementRow,
} from '../db/index.js'
import { newId, nowIso } from '../ids.js'
import type { EscrowDeps } from './deps.js'
import { type EscrowLogStep, findEscrowSteps } from './on-chain.js'
import { applyEscrowStep, recordEscrowCollect } from './records.js'

/**
 * Voids what a payment still holds through the facilitator (a lifecycle `void` signed by the seller's receiver
 * authorizer), answering its transaction (it releases everything held). void-hold.ts's `facilitatorHoldVoider` is
 * the chain facilitator's; recovery only decides when.
 */
export type HoldVoider = (payment: EscrowPaymentRow) => Promise<{ transaction: string }>

/** What resolving the pending escrow actions did. */
export type EscrowActionResolution = {
  /** Found on the chain: finished as settled, with the transaction and amount of its log. */
  landed: number
  /** Never reached the chain: finished as failed. */
  notSent: number
  /** Sent on a chain that is gone (a new chain, a twin's after a restart): finished as failed. */
  gone: number
  /** Left for a later try (the chain is restarting or could not be read, or no chain services here). */
  kept: number
}

/** The chain of a network this process runs (the Sandbox chain or a twin). */
function chainOf(deps: EscrowDeps, network: string): SandboxChain | undefined {
  if (!deps.chain) return undefined
  const chains = [deps.chain.sandboxChain, ...deps.chain.twins.map((twin) => twin.chain)]
  return chains.find((chain) => chain.network === network)
}

/**
 * Applies to a payment's record every step the chain has of it (its Payment* logs), in chain order: each is recorded
 * once (escrow_transactions' unique key), so the steps already recorded change nothing and those a crash lost are
 * recorded now, as recovery's (a reclaim as the payer's). Answers the payment after them.
 */
export async function syncEscrowPayment(
  deps: EscrowDeps,
  payment: EscrowPaymentRow,
  steps: readonly EscrowLogStep[],
): Promise<EscrowPaymentRow> {
  let current = payment
  for (const step of steps) {
    if (step.kind === 'authorize' || step.kind === 'charge') continue
    const done = await applyEscrowStep(deps.db, current, {
      kind: step.kind,
      amount: step.amount,
      feeAmount: step.feeAmount,
      transaction: step.transaction,
      actor: step.kind === 'reclaim' ? 'payer' : 'recovery',
    })
    current = done.payment
  }
  return current
}

/**
 * Whether recovery voids a payment's hold: a sync capture's payment whose paid answer was never delivered (svc died
 * between the hold and the capture, or the buyer went away) still holding something on chain. A deferred hold stays
 * authorized, marked undelivered, for the seller to capture or void; a charge holds nothing.
 */
export function voidsUndeliveredHold(
  payment: Pick<EscrowPaymentRow, 'flow' | 'capture_mode' | 'delivered'>,
  chain: Pick<PaymentState, 'capturableAmount'>,
): boolean {
  const { flow, capture_mode, delivered } = payment
  return flow === 'escrow' && capture_mode === 'sync' && delivered === 0 && chain.capturableAmount > 0n
}

/** Voids a payment's undelivered sync hold when {@link voidsUndeliveredHold} says so, and records the void. */
async function voidIfUndelivered(
  deps: EscrowDeps,
  payment: EscrowPaymentRow,
  how: { client: PublicClient; voidHold: HoldVoider | undefined; log: (message: string) => void },
): Promise<void> {
  const { client, voidHold, log } = how
  const state = await readPaymentState(client, payment.escrow as Address, payment.payment_info_hash as Hex)
  if (!voidsUndeliveredHold(payment, state)) return
  const what = `the hold of the escrow payment ${payment.id} (${payment.method} ${payment.path}), whose answer svc never gave`
  if (!voidHold) return log(`svc: ${what}, cannot be voided here: it stays authorized`)
  try {
    const { transaction } = await voidHold(payment)
    const amount = state.capturableAmount.toString()
    await applyEscrowStep(deps.db, payment, { kind: 'void', amount, transaction, actor: 'recovery' })
    log(`svc: ${what}, was voided: back to the buyer`)
  } catch (error) {
    log(`svc: ${what}, could not be voided yet: ${toSvcError(error).message}`)
  }
}

/**
 * Resolves the escrow actions a process that died left pending (the facilitator journals each authorize, charge,
 * capture, void and refund before sending it): each is looked for among the escrow's Payment* logs of its hash from
 * its block, and finished as settled (with its transaction and amount) or failed; a payment svc records has the steps
 * the chain shows applied to it. Actions of processes still running are theirs; `owner`: only that gone process's.
 * Errors are logged, never thrown: an action that cannot be read now is kept for the next start.
 */
export async function resolveEscrowActions(
  deps: EscrowDeps,
  options: { owner?: string | undefined } = {},
): Promise<EscrowActionResolution> {
  const log = deps.log ?? ((message: string) => console.error(message))
  const done: EscrowActionResolution = { landed: 0, notSent: 0, gone: 0, kept: 0 }
  const me = processOwnerOf(deps.db)
  const gone = new Map<string | null, Promise<boolean>>()
  for (const action of await listPendingEscrowActions(deps.db, { owner: options.owner })) {
    try {
      if (options.owner === undefined) {
        if (action.owner === me.id) continue
        if (!gone.has(action.owner)) gone.set(action.owner, me.isGone(action.owner))
        if (!(await gone.get(action.owner))) continue
      }
      done[await resolveAction(deps, action, chainOf(deps, action.network))]++
    } catch (error) {
      done.kept++
      log(`svc: the escrow action ${action.id} could not be resolved yet: ${toSvcError(error).message}`)
    }
  }
  if (done.landed + done.notSent + done.gone > 0)
    log(
      `svc: ${done.landed + done.notSent + done.gone} escrow action(s) under way when svc stopped were resolved from the chain (${done.landed} landed)`,
    )
  return done
}

async function resolveAction(
  deps: EscrowDeps,
  action: EscrowAction,
  chain: SandboxChain | undefined,
): Promise<keyof EscrowActionResolution> {
  if (!deps.chain || chain?.restarting) return 'kept'
  const finish = (outcome: Partial<EscrowAction>) =>
    saveEscrowAction(deps.db, { ...action, ...outcome, resolvedAt: nowIso() })
  if (!chain || chain.epoch !== action.chainEpoch) {
    await finish({ state: 'failed', error: 'the chain it was sent on is gone' })
    return 'gone'
  }
  const hash = action.paymentInfoHash as Hex
  const steps = await findEscrowSteps(chain.client, hash, { fromBlock: BigInt(action.fromBlock) })
  // The transactions other actions of this payment were finished with are theirs (two captures of one hold).
  const taken = new Set(
    (await listEscrowActions(deps.db, hash))
      .filter((other) => other.id !== action.id && other.state === 'settled' && other.transaction)
      .map((other) => other.transaction!.toLowerCase()),
  )
  const candidates = steps.filter((step) => step.kind === action.kind && !taken.has(step.transaction.toLowerCase()))
  const found = candidates.find((step) => step.amount === action.requested) ?? candidates[0]
  if (!found) {
    const funding = action.kind === 'refund' ? await refundFundingOf(deps, chain.client, action) : undefined
    if (funding?.returned === false) {
      const returned = await deps.chain.facilitator.escrowActions.returnFunding(action)
      logOf(deps)(
        `svc: the refund ${action.id} of ${action.requested} was funded but never sent: its funding went back to the receiver ${action.receiver} (${returned})`,
      )
    }
    await finish({
      state: 'failed',
      fundingTransaction: funding?.transaction ?? action.fundingTransaction,
      error: funding
        ? "svc stopped between the refund's funding and the refund: the funding went back to the receiver"
        : 'svc stopped before it reached the chain',
    })
    return 'notSent'
  }
  await finish({ state: 'settled', transaction: found.transaction, amount: found.amount })
  const payment = await findEscrowPaymentByHash(deps.db, action.chainEpoch, hash)
  if (payment) await syncEscrowPayment(deps, payment, steps)
  return 'landed'
}

const transferEvent = parseAbiItem('event Transfer(address indexed from, address indexed to, uint256 value)')

/**
 * A refund's funding on the chain (the receiver's transfer of its amount to the operator, from the action's block):
 * the one its row names, or one no other action names (svc died before writing it); and whether it went back to
 * the receiver already (a transfer of that amount from the operator to the receiver after it). Undefined: not funded.
 */
async function refundFundingOf(
  deps: EscrowDeps,
  client: PublicClient,
  action: EscrowAction,
): Promise<{ transaction: Hex; returned: boolean } | undefined> {
  const amount = BigInt(action.requested)
  const transfers = async (from: Address, to: Address) =>
    (
      await client.getLogs({
        address: action.token,
        event: transferEvent,
        args: { from, to },
        fromBlock: BigInt(action.fromBlock),
      })
    ).filter((log) => log.args.value === amount)
  const named = action.fundingTransaction?.toLowerCase()
  let funding: Awaited<ReturnType<typeof transfers>>[number] | undefined
  for (const log of await transfers(action.receiver, action.operator)) {
    const hash = log.transactionHash.toLowerCase()
    if (named ? hash === named : !(await escrowActionFundedBy(deps.db, hash))) {
      funding = log
      break
    }
  }
  if (!funding) return undefined
  const returns = await transfers(action.operator, action.receiver)
  return {
    transaction: funding.transactionHash,
    returned: returns.some((log) => log.blockNumber > funding.blockNumber),
  }
}

const logOf = (deps: EscrowDeps) => deps.log ?? ((message: string) => console.error(message))

/** What an escrow collect's journal row resolved to (server/journal/recovery.ts's counts). */
export type EscrowRowOutcome = 'kept' | 'unverifiable' | 'notSettled' | 'alreadyRecorded' | 'recovered' | 'undelivered'

/** Margin past a collect's expiry (seconds) before its not being on the chain is final. */
const expiryMarginSeconds = 10

/**
 * The journal's hook for an escrow collect's row (`settlement_journal.escrow`: a paid request svc was serving when
 * it died), given to resolveSettlementJournal: the chain says whether the collect landed (its PaymentAuthorized or
 * PaymentCharged log). Landed: the payment and its settlement are recorded (once), every later step the chain has is
 * applied, the answer is marked undelivered, and a sync hold is voided ({@link voidsUndeliveredHold}) by `voidHold`.
 * Not landed: the row waits until the authorization expired, then goes (nothing was charged).
 */
export function escrowJournalResolver(voidHold?: HoldVoider | undefined) {
  return async (
    deps: EscrowDeps,
    row: SettlementJournalRow,
    log: (message: string) => void,
  ): Promise<EscrowRowOutcome> => {
    const entry = JSON.parse((row as { escrow?: string | null }).escrow!) as EscrowJournalEntry
    const source = await sourceOf(deps, row)
    if (source === 'kept') return 'kept'
    if ('why' in source) {
      await deleteJournalRow(deps.db, row.id)
      log(`svc: the unfinished escrow payment ${row.id} (${row.method} ${row.path}) cannot be checked: ${source.why}`)
      return 'unverifiable'
    }
    const { client, range } = source
    const hash = entry.paymentInfoHash.toLowerCase() as Hex
    const steps = await findEscrowSteps(client, hash, range)
    const collect = steps.find((step) => step.kind === entry.kind)
    if (!collect) {
      const expiry = Number(row.valid_before ?? entry.paymentInfo.preApprovalExpiry)
      const now = (deps.clock?.nowSeconds() ?? Math.floor(Date.now() / 1000)) - expiryMarginSeconds
      if (row.state !== 'refused' && Number.isFinite(expiry) && expiry >= now) return 'kept'
      await deleteJournalRow(deps.db, row.id)
      return 'notSettled'
    }
    let payment = await findEscrowPaymentByHash(deps.db, row.chain_epoch, hash)
    let outcome: EscrowRowOutcome
    if (row.settlement_id === null) {
      const settlement: SettlementRow = {
        id: newId('stl'),
        api_id: row.api_id,
        endpoint_id: row.ephemeral ? null : row.endpoint_id,
        user_id: row.user_id,
        environment: row.environment,
        network: row.network,
        asset: row.asset,
        amount: '0',
        payer: row.payer,
        pay_to: row.pay_to,
        transaction: collect.transaction,
        method: row.method,
        path: row.path,
        created_at: row.created_at,
        chain_epoch: row.chain_epoch,
        delivered: 0,
        builder_code: null,
      }
      // Recorded already (its transaction), or a new request of the same payment took the row over: it is theirs.
      if (!(await recordJournalSettlement(deps.db, row, settlement))) {
        if (!payment) await recordCollect(deps, { row, entry, collect, settlementId: undefined })
        return 'alreadyRecorded'
      }
      payment = await recordCollect(deps, { row, entry, collect, settlementId: settlement.id })
      outcome = 'recovered'
    } else {
      await markJournalUndelivered(deps.db, { ...row, settlement_id: row.settlement_id })
      payment ??= await recordCollect(deps, { row, entry, collect, settlementId: row.settlement_id })
      outcome = 'undelivered'
    }
    await markEscrowUndelivered(deps.db, payment.id)
    payment = await syncEscrowPayment(deps, { ...payment, delivered: 0 }, steps)
    // A production payment's hold is the seller's to void (svc's facilitator relays the Sandbox's only).
    if (row.environment !== 'production') await voidIfUndelivered(deps, payment, { client, voidHold, log })
    return outcome
  }
}

/**
 * Where a journal row's escrow payment is read: the Sandbox chain (or a twin) of its epoch, or a production network
 * svc has the RPC of (`--rpc`), in bounded ranges from the row's block, else a twin of it svc runs; or why it cannot
 * be, or not now.
 */
async function sourceOf(
  deps: EscrowDeps,
  row: SettlementJournalRow,
): Promise<{ client: PublicClient; range: { fromBlock?: bigint; maxBlocks?: number } } | { why: string } | 'kept'> {
  if (row.environment === 'production') {
    const client = await deps.productionChains?.clientOf(row.network)
    // A production API paid on a twin svc runs (through svc's facilitator) is read on that twin.
    const twin = client || row.network === deps.chain?.sandboxChain.network ? undefined : chainOf(deps, row.network)
    if (twin) return twin.restarting ? 'kept' : { client: twin.client, range: {} }
    if (!client) return { why: `no RPC is given for ${row.network}: start svc with --rpc ${row.network}=<url>` }
    return { client, range: await deps.productionChains!.logRange(client, row.from_block, row.created_at) }
  }
  if (!deps.chain) return 'kept'
  const chain = chainOf(deps, row.network)
  if (!chain) return { why: 'its network is not run here' }
  if (chain.restarting) return 'kept'
  if (chain.epoch !== row.chain_epoch) return { why: 'its Sandbox chain is gone' }
  return { client: chain.client, range: {} }
}

/** Records a landed collect of a journal row as recovery's, answered undelivered. */
async function recordCollect(
  deps: EscrowDeps,
  landed: {
    row: SettlementJournalRow
    entry: EscrowJournalEntry
    collect: EscrowLogStep
    settlementId: string | undefined
  },
): Promise<EscrowPaymentRow> {
  const { row, entry, collect, settlementId } = landed
  const info = entry.paymentInfo as Record<string, string | number>
  const { payment } = await recordEscrowCollect(
    deps.db,
    {
      chain_epoch: row.chain_epoch,
      payment_info_hash: entry.paymentInfoHash,
      user_id: row.user_id,
      api_id: row.api_id,
      endpoint_id: row.ephemeral ? null : row.endpoint_id,
      environment: row.environment,
      network: row.network,
      asset: row.asset,
      payer: row.payer,
      pay_to: row.pay_to,
      method: row.method,
      path: row.path,
      flow: entry.kind === 'charge' ? 'authorization' : 'escrow',
      capture_mode: entry.kind === 'charge' ? null : entry.captureMode,
      transfer_method: row.transfer_method ?? 'eip3009',
      escrow: entry.escrow,
      operator: String(info.operator),
      receiver_authorizer: entry.receiverAuthorizer,
      payment_info: JSON.stringify(entry.paymentInfo),
      salt_nonce: entry.saltNonce,
      pre_approval_expiry: Number(info.preApprovalExpiry),
      capture_deadline: Number(info.authorizationExpiry),
      refund_deadline: Number(info.refundExpiry),
      delivered: 0,
      created_at: row.created_at,
    },
    {
      kind: entry.kind,
      amount: collect.amount,
      feeAmount: collect.feeAmount,
      transaction: collect.transaction,
      actor: 'recovery',
    },
    settlementId,
  )
  return payment
}
