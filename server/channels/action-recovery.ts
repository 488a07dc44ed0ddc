import type { PublicClient } from 'viem'
import { findChannelActionOnChain, type ChannelAction } from '../../chain/batch-settlement/index.js'
import type { SandboxChain } from '../../chain/sandbox-chain.js'
import { toSvcError } from '../../core/errors.js'
import {
  actionOf,
  type BatchChannelRow as ChannelRow,
  listPendingChannelActions,
  processOwnerOf,
  saveChannelAction,
} from '../db/index.js'
import type { ChannelsDeps } from './deps.js'
import { createChannelStorage } from './storage.js'
import { createBatchRecords } from './records.js'
import { movedBy, sandboxChainOf } from './recorded-facilitator.js'

/** What resolving the pending channel actions did. */
export type ChannelActionResolution = {
  /** Found on the chain: finished as settled, with their transaction when its log was found. */
  landed: number
  /** Never reached the chain: finished as failed. */
  notSent: number
  /** Sent on a chain that is gone (a new chain, a twin's, which starts empty each run): finished as failed. */
  gone: number
  /** Left for a later try (the chain is restarting or could not be read, or no chain services here). */
  kept: number
}

/**
 * Resolves the batch-settlement actions a process that died left pending (the facilitator journals each deposit,
 * claim, settle and refund before sending it, chain/batch-settlement/channel-actions.ts): each is looked for on the chain
 * it was sent on (chain/batch-settlement/actions-on-chain.ts) and finished as settled or failed. Actions of processes
 * still running (a shared PostgreSQL database) are theirs; `owner`: only that gone process's (the reaper holds its
 * lock). Errors are logged, never thrown: an action that cannot be read now is kept for the next start.
 */
export async function resolveChannelActions(
  deps: ChannelsDeps,
  options: { owner?: string | undefined } = {},
): Promise<ChannelActionResolution> {
  const log = deps.log ?? ((message: string) => console.error(message))
  const done: ChannelActionResolution = { landed: 0, notSent: 0, gone: 0, kept: 0 }
  const chains: SandboxChain[] = deps.chain
    ? [deps.chain.sandboxChain, ...deps.chain.twins.map((twin) => twin.chain)]
    : []
  const me = processOwnerOf(deps.db)
  const gone = new Map<string | null, Promise<boolean>>()
  for (const action of await listPendingChannelActions(deps.db, { owner: options.owner })) {
    const chain = chains.find((candidate) => candidate.network === action.network)
    try {
      // This process's own actions are in flight here.
      if (options.owner === undefined) {
        if (action.owner === me.id) continue
        if (!gone.has(action.owner)) gone.set(action.owner, me.isGone(action.owner))
        if (!(await gone.get(action.owner))) continue
      }
      done[await resolve(deps, action, chain)]++
    } catch (error) {
      done.kept++
      log(`svc: the channel action ${action.id} could not be resolved yet: ${toSvcError(error).message}`)
    }
  }
  if (options.owner === undefined)
    await recordUnrecordedClaims(deps, (owner) => {
      if (owner === me.id) return Promise.resolve(false)
      if (!gone.has(owner)) gone.set(owner, me.isGone(owner))
      return gone.get(owner)!
    }).catch((error: unknown) =>
      log(`svc: the channel claims could not be checked against svc's records: ${toSvcError(error).message}`),
    )
  if (done.landed + done.notSent + done.gone > 0)
    log(
      `svc: ${done.landed + done.notSent + done.gone} batch-settlement action(s) under way when svc stopped were resolved from the chain (${done.landed} landed)`,
    )
  return done
}

/**
 * A claim the facilitator finished whose answer died with svc before the gateway recorded it (its journal row is
 * settled, so nothing above looks at it): the newest claim of each receiver svc keeps channels for, sent by a process
 * that is gone, is recorded as landed unless it is already (else the next manager would claim its vouchers again, in
 * an empty transaction). The manager claims one batch at a time, so only its newest claim can be unrecorded.
 */
async function recordUnrecordedClaims(deps: ChannelsDeps, isGone: (owner: string | null) => Promise<boolean>) {
  const epoch = deps.chain?.sandboxChain.epoch
  if (epoch === undefined) return
  const receivers = await deps.db
    .selectFrom('batch_channels')
    .select('receiver')
    .distinct()
    .where('chain_epoch', '=', epoch)
    .execute()
  for (const { receiver } of receivers) {
    const row = await deps.db
      .selectFrom('channel_actions')
      .selectAll()
      .where('receiver', '=', receiver)
      .where('chain_epoch', '=', epoch)
      .where('kind', '=', 'claim')
      .orderBy('created_at', 'desc')
      .limit(1)
      .executeTakeFirst()
    if (row?.state !== 'settled' || !row.transaction || !(await isGone(row.owner))) continue
    const action = actionOf(row)
    if (action.detail.kind === 'claim') await recordLandedClaim(deps, action, action.detail.claims, row.transaction)
  }
}

async function resolve(
  deps: ChannelsDeps,
  action: ChannelAction,
  chain: SandboxChain | undefined,
): Promise<keyof ChannelActionResolution> {
  if (!deps.chain || chain?.restarting) return 'kept'
  const finish = (done: Partial<ChannelAction>) =>
    saveChannelAction(deps.db, { ...action, ...done, resolvedAt: new Date().toISOString() })
  // A twin starts empty each run (a new epoch), so its actions end here after a restart: what is recorded below is
  // the Sandbox chain's, under the epoch the gateway keeps it under (a development API takes only that network).
  if (!chain || chain.epoch !== action.chainEpoch) {
    await finish({ state: 'failed', error: 'the chain it was sent on is gone' })
    return 'gone'
  }
  const found = await findChannelActionOnChain(chain.client, action)
  if (!found.landed) {
    await finish({ state: 'failed', error: 'svc stopped before it reached the chain' })
    return 'notSent'
  }
  await finish({ state: 'settled', transaction: found.transaction ?? null, amount: found.amount })
  if (action.kind === 'settle' && found.transaction)
    await recordLandedSettle(deps, action, found.transaction, found.amount)
  if (action.detail.kind === 'claim') await recordLandedClaim(deps, action, action.detail.claims, found.transaction)
  return 'landed'
}

/**
 * A settle of svc's gateway's channel manager that landed while svc died before recording it: its receiver's claimed
 * amounts count as settled and the transaction is the channel's settle, as the gateway would have recorded them (else
 * the manager, which keeps in memory that a settle is due, would never settle them again: nothing is left on chain).
 * A receiver svc keeps no channels for (a seller of its own using svc's facilitator) has nothing to record.
 */
/** Whether the gateway recorded the channel transaction `transaction` of `kind` on the chain of `epoch`. */
async function isRecorded(deps: ChannelsDeps, epoch: string, kind: 'claim' | 'settle', transaction: string) {
  const row = await deps.db
    .selectFrom('batch_transactions')
    .select('id')
    .where('chain_epoch', '=', epoch)
    .where('kind', '=', kind)
    .where('transaction', '=', transaction)
    .executeTakeFirst()
  return row !== undefined
}

async function recordLandedSettle(
  deps: ChannelsDeps,
  action: ChannelAction,
  transaction: string,
  amount: string,
): Promise<void> {
  const epoch = action.chainEpoch
  const known = await deps.db
    .selectFrom('batch_channels')
    .select(['environment', 'token'])
    .where('chain_epoch', '=', epoch)
    .where('receiver', '=', action.receiver.toLowerCase())
    .executeTakeFirst()
  const recorded = await isRecorded(deps, epoch, 'settle', transaction)
  if (!known || recorded) return
  const records = createBatchRecords(
    deps.db,
    (write) => write(),
    () => new Date(),
  )
  // The channels count as settled by svc's records; the amount is the chain's Settled log's.
  await records.settled(epoch, action.receiver, action.token)
  await records.transaction({
    chainEpoch: epoch,
    kind: 'settle',
    environment: known.environment,
    network: action.network,
    token: known.token,
    receiver: action.receiver,
    amount,
    transaction,
  })
}

/**
 * A claim of svc's gateway's channel manager that landed while svc died before recording it: each claimed channel's
 * record (the package's, which the manager claims from) takes the totals the chain has, so the next manager does not
 * claim them again (an empty transaction the record would carry instead of this one), and the claim is recorded with
 * its transaction and what it added, as the gateway would have. Channels svc keeps no record of are not its own.
 */
async function recordLandedClaim(
  deps: ChannelsDeps,
  action: ChannelAction,
  claims: { channelId: string; totalClaimed: string }[],
  transaction: string | undefined,
): Promise<void> {
  const epoch = action.chainEpoch
  let added = 0n
  let known: { environment: ChannelRow['environment']; network: string; token: string } | undefined
  for (const claim of claims) {
    const row = await deps.db
      .selectFrom('batch_channels')
      .select(['environment', 'network', 'token', 'receiver', 'withdraw_delay'])
      .where('chain_epoch', '=', epoch)
      .where('channel_id', '=', claim.channelId.toLowerCase())
      .executeTakeFirst()
    if (!row) continue
    known ??= row
    const storage = createChannelStorage(deps.db, {
      chainEpoch: epoch,
      environment: row.environment,
      network: row.network,
      receiver: row.receiver,
      withdrawDelay: row.withdraw_delay,
    })
    await storage.updateChannel(claim.channelId, (current) => {
      if (!current || BigInt(current.totalClaimed) >= BigInt(claim.totalClaimed)) return current
      added += BigInt(claim.totalClaimed) - BigInt(current.totalClaimed)
      return { ...current, totalClaimed: claim.totalClaimed }
    })
  }
  if (!known || !transaction) return
  const recorded = await isRecorded(deps, epoch, 'claim', transaction)
  if (recorded) return
  // What it moved is the chain's (its Claimed logs) where they can be read: the records' totals may have been behind.
  const chain = sandboxChainOf(deps, action.network, epoch)
  if (chain) {
    const moved = await movedBy(chain.client as PublicClient, transaction, action.receiver, known.token).catch(
      () => undefined,
    )
    if (moved) added = [...moved.claimed.values()].reduce((sum, amount) => sum + amount, 0n)
  }
  await createBatchRecords(
    deps.db,
    (write) => write(),
    () => new Date(action.createdAt),
  ).transaction({
    chainEpoch: epoch,
    kind: 'claim',
    environment: known.environment,
    network: action.network,
    token: known.token,
    receiver: action.receiver,
    amount: added.toString(),
    vouchers: claims.length,
    transaction,
  })
}
