import type { Address, Hex } from 'viem'
import { readPaymentState } from '../../chain/auth-capture/index.js'
import type { SandboxChain } from '../../chain/sandbox-chain.js'
import { toSvcError } from '../../core/errors.js'
import {
  type EscrowPaymentRow,
  type EscrowTransactionRow,
  escrowPaymentsPastCaptureDeadline,
  listEscrowTransactions,
} from '../db/index.js'
import type { EscrowDeps } from './deps.js'
import { findEscrowSteps } from './on-chain.js'
import { syncEscrowPayment } from './action-recovery.js'

/** A reclaim the sweep recorded: the payment after it and the reclaim's transaction. */
export type RecordedReclaim = { payment: EscrowPaymentRow; transaction: EscrowTransactionRow }

export type ReclaimSweepOptions = {
  /** How often it looks. @defaultValue 1000 */
  everyMs?: number | undefined
  /** Told of each reclaim it records (the live events' `payment.reclaimed`). */
  onReclaimed?: ((reclaim: RecordedReclaim) => void) | undefined
}

/**
 * Records the reclaims buyers made of holds past their capture deadline (no request of svc's is behind them: the buyer
 * calls the escrow's `reclaim` itself, e.g. `svc payments reclaim`). The payments still `authorized` at or past their
 * capture deadline by svc's clock (one indexed query, the whole cost when there is nothing to do) are read on chain
 * (`paymentState`), each at most once per block; one that holds nothing any more has its steps read from the escrow's
 * logs and recorded (the reclaim as the payer's). Answers the reclaims recorded.
 */
export async function sweepReclaims(
  deps: EscrowDeps,
  seen: Map<string, bigint> = new Map(),
): Promise<RecordedReclaim[]> {
  const chains: SandboxChain[] = deps.chain
    ? [deps.chain.sandboxChain, ...deps.chain.twins.map((twin) => twin.chain)]
    : []
  const now = deps.clock?.nowSeconds() ?? Math.floor(Date.now() / 1000)
  const recorded: RecordedReclaim[] = []
  for (const chain of chains) {
    if (chain.restarting) continue
    const due = await escrowPaymentsPastCaptureDeadline(deps.db, chain.epoch, now)
    // A twin also holds production APIs' payments made through svc's facilitator (recorded without an epoch).
    if (chain !== deps.chain?.sandboxChain)
      due.push(...(await escrowPaymentsPastCaptureDeadline(deps.db, '', now, { network: chain.network })))
    if (due.length === 0) continue
    const block = await chain.client.getBlockNumber()
    for (const payment of due) {
      if (seen.get(payment.id) === block) continue
      seen.set(payment.id, block)
      const state = await readPaymentState(chain.client, payment.escrow as Address, payment.payment_info_hash as Hex)
      if (state.capturableAmount > 0n) continue
      const after = await syncEscrowPayment(
        deps,
        payment,
        await findEscrowSteps(chain.client, payment.payment_info_hash as Hex),
      )
      if (after.reclaimed === payment.reclaimed) continue
      const transaction = (await listEscrowTransactions(deps.db, payment.id)).findLast((row) => row.kind === 'reclaim')
      if (transaction) recorded.push({ payment: after, transaction })
      seen.delete(payment.id)
    }
  }
  return recorded
}

/**
 * Runs {@link sweepReclaims} every second on the process that owns the chain (server/start/chain-attachment.ts),
 * one sweep at a time; failures are logged, never thrown. `stop()` ends it once a sweep under way is done.
 */
export function startReclaimSweep(deps: EscrowDeps, options: ReclaimSweepOptions = {}): { stop(): Promise<void> } {
  const log = deps.log ?? ((message: string) => console.error(message))
  const seen = new Map<string, bigint>()
  let running: Promise<void> | undefined
  let stopped = false
  const tick = () => {
    if (running || stopped) return
    running = sweepReclaims(deps, seen)
      .then((reclaims) => {
        for (const reclaim of reclaims) options.onReclaimed?.(reclaim)
      })
      .catch((error: unknown) => log(`svc: the escrow reclaims could not be read: ${toSvcError(error).message}`))
      .finally(() => {
        running = undefined
      })
  }
  const timer = setInterval(tick, options.everyMs ?? 1_000)
  timer.unref()
  return {
    async stop() {
      stopped = true
      clearInterval(timer)
      await running
    },
  }
}
