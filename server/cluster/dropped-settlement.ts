import type { PublicClient } from 'viem'
import { clusterSettlingPath } from './cluster-secret.js'
import { processOwnerOf, type SettlementJournalRow } from '../db/index.js'
import type { ClusterDeps } from './deps.js'
import { findSettlementOf } from '../journal/index.js'

/**
 * How old a row must be before its settlement counts as handed over: a settle call its process sent just before it
 * died has reached the facilitator by then (and counts there as under way, {@link facilitatorSettling}).
 */
export const settleHandoffMs = 2_000

/** How long the chain owner is given to say whether its facilitator is settling an authorization. */
const askOwnerTimeoutMs = 3_000

/**
 * Gives up the settlement of a payment whose process died while settling it (its journal row `settling`, its owner
 * gone) once nothing svc sent, or will send, for it can reach the chain, so that the payment is free to be paid afresh
 * (issue 35 item 7c): a load balancer's replay is then verified and settled at once instead of answering 503 until
 * its authorization's validBefore (minutes). The rule, every part of it:
 * 1. a Sandbox payment (its EIP-3009 or Permit2 nonce journaled), not a payment channel's action: Sandbox settlements
 *    are sent by svc's own facilitator only, which svc can ask; a production payment's facilitator cannot be asked,
 *    so its row still waits for validBefore (server/journal/recovery.ts);
 * 2. the row is older than {@link settleHandoffMs};
 * 3. the chain it was paid on is gone (another epoch: its transactions and its pool went with it), or else:
 *    a. the chain's facilitator (this process's, or the team Sandbox owner's, asked through its listener) is not
 *       settling that authorization now, so it will send nothing for it later (a settle fault's delay counts as
 *       settling);
 *    b. the chain's pool holds no transaction carrying the nonce (Anvil's `txpool_content`): nothing sent waits to
 *       be mined (a settlement sent and then dropped, or lost with blocks a chain reloaded from an older save lacks);
 *    c. read after a and b, the chain says the authorization is unused (`authorizationState`, Permit2's
 *       `nonceBitmap`): since nothing can use it any more, that is final.
 * Anything that cannot be read (the chain restarting, the owner not answering) keeps the row as it is. A row given up
 * is marked `abandoned`, the state of a settlement that broke off, still holding its owner's id: a retry of the
 * payment takes it over (server/db/settlement-journal.ts `claimJournalRow`) and is verified and settled afresh; with
 * no retry, recovery resolves it as before. Never charged twice: the nonce lets one transfer through at most, and
 * should one land after all, the row of the same nonce that took over is resolved from the chain like any other.
 * @returns true when the payment's row was given up
 */
export async function releaseDroppedSettlement(deps: ClusterDeps, paymentId: string): Promise<boolean> {
  const row = await deps.db
    .selectFrom('settlement_journal')
    .selectAll()
    .where('payment_id', '=', paymentId)
    .where('state', '=', 'settling')
    .executeTakeFirst()
  if (!row || row.owner === null || !(await isDropped(deps, row))) return false
  // Still the same row, still settling, its owner still gone (a live owner never loses a row it works on).
  if (!(await processOwnerOf(deps.db).isGone(row.owner))) return false
  const given = await deps.db
    .updateTable('settlement_journal')
    .set({ state: 'abandoned' })
    .where('id', '=', row.id)
    .where('state', '=', 'settling')
    .where('owner', '=', row.owner)
    .executeTakeFirst()
  if (given.numUpdatedRows === 0n) return false
  deps.log?.(
    `svc: the settlement of ${row.method} ${row.path} (payer ${row.payer}) was sent by a process that stopped and is not on the chain nor on its way there: a retry of the payment settles it afresh`,
  )
  return true
}

/** Rule 1 to 3 of {@link releaseDroppedSettlement}: nothing sent or to be sent for the row can reach the chain. */
async function isDropped(deps: ClusterDeps, row: SettlementJournalRow): Promise<boolean> {
  if (row.environment !== 'development' || row.channel_action !== null || row.nonce === null) return false
  if (Date.now() - Date.parse(row.created_at) < settleHandoffMs) return false
  const chain = deps.chain?.sandboxChain ?? deps.chainOwner?.reader()
  if (!chain || chain.restarting || row.network !== chain.network) return false
  if (row.chain_epoch !== chain.epoch) return true
  if (await facilitatorSettling(deps, row.payer, row.nonce)) return false
  if (await inPool(chain.client, row.nonce)) return false
  return !(await findSettlementOf(chain.client, row, row.nonce, {})).used
}

/** Whether the Sandbox chain's facilitator is settling the authorization now; true when that cannot be known. */
async function facilitatorSettling(deps: ClusterDeps, authorizer: string, nonce: string): Promise<boolean> {
  if (deps.chain) return deps.chain.facilitator.isSettling(authorizer, nonce)
  const owner = deps.chainOwner?.ownerRoute(clusterSettlingPath)
  if (!owner) return true
  try {
    const answer = await fetch(`${owner.url}?${new URLSearchParams({ authorizer, nonce })}`, {
      headers: owner.headers,
      signal: AbortSignal.timeout(askOwnerTimeoutMs),
    })
    if (!answer.ok) return true
    return ((await answer.json()) as { settling?: unknown }).settling !== false
  } catch {
    return true
  }
}

/** Whether a transaction in the chain's pool (pending or queued) carries `nonce` (a 32-byte word of its input). */
async function inPool(client: PublicClient, nonce: string): Promise<boolean> {
  const word = /^0x[0-9a-f]{64}$/i.test(nonce)
    ? nonce.slice(2).toLowerCase()
    : /^[0-9]+$/.test(nonce)
      ? BigInt(nonce).toString(16).padStart(64, '0')
      : undefined
  if (word === undefined) return true
  const pool = await client.request<{ Method: 'txpool_content'; Parameters: []; ReturnType: unknown }>({
    method: 'txpool_content',
    params: [],
  })
  return JSON.stringify(pool).toLowerCase().includes(word)
}
