import type { Address, Hex, PublicClient } from 'viem'
import { type LogRange, findAuthorizationUse } from '../../chain/logs/index.js'
import { findPermit2NonceUse } from '../../chain/permit2/index.js'
import { toSvcError } from '../../core/errors.js'
import {
  deleteJournalRow,
  listJournalRows,
  markJournalUndelivered,
  processOwnerOf,
  recordJournalSettlement,
  type SettlementJournalRow,
  type SettlementRow,
} from '../db/index.js'
import type { JournalDeps } from './deps.js'
import { newId } from '../ids.js'

/** What resolving the journal did, row by row. */
export type JournalResolution = {
  /** Settlements found on the chain and recorded now, as charged without an answer. */
  recovered: number
  /** Recorded settlements whose answer was never known to reach the buyer, now marked so. */
  undelivered: number
  /** Payments that never reached the chain (nothing was charged): rows removed. */
  notSettled: number
  /** Rows that cannot be checked (a production network, a Sandbox chain that is gone): removed, and logged. */
  unverifiable: number
  /** Settlements that were recorded already by another row of the same transaction: rows removed. */
  alreadyRecorded: number
  /** Rows left for a later try (the chain is restarting, or could not be read). */
  kept: number
}

export type ResolveJournalOptions<D extends JournalDeps = JournalDeps> = {
  /** Only rows written before this time (ISO). @defaultValue now */
  before?: string | undefined
  /** Rows of payments still in flight in this process. */
  skip?: ReadonlySet<string> | undefined
  /**
   * Only the rows of this owner, a process known to be gone (the reaper holds its liveness lock: server/journal/
   * reaper.ts). @defaultValue every owner that is gone, and this process's own rows
   */
  owner?: string | undefined
  /**
   * Resolves a row of a channel's deposit or refund (server/channels/journal.ts's `resolveChannelJournalRow`; the
   * channels room stands above the journal, so start-up, the sweeper and the reaper pass it in). @defaultValue none:
   * such rows are kept for a sweep that has it
   */
  channelRow?: ChannelRowResolver<D> | undefined
  /** Resolves an escrow collect's row: its logs say what to record and void (server/escrow's `escrowJournalResolver`). */
  escrowRow?:
    | ((deps: D, row: SettlementJournalRow, log: (message: string) => void) => Promise<keyof JournalResolution>)
    | undefined
}

/** What a channel's journal row resolved to; `D`: the deps it reads (the channels room's, a wider type than the journal's). */
export type ChannelRowResolver<D extends JournalDeps = JournalDeps> = (
  deps: D,
  row: SettlementJournalRow,
  log: (message: string) => void,
) => Promise<'kept' | 'unverifiable' | 'notSettled' | 'alreadyRecorded' | 'recovered'>

/**
 * Margin past an authorization's validBefore (seconds) before its not being used on the chain is final: a block's
 * time may trail svc's clock a little.
 */
const validBeforeMarginSeconds = 10

/**
 * Resolves settlement journal rows that no request is working on any more: rows of processes that are gone (at start:
 * every earlier boot's; on a shared PostgreSQL database, processes whose liveness lock is free) and this process's
 * own rows not in flight (failed settlements, later); rows of processes still running are theirs. A row with a recorded settlement was charged but its answer was never known to be written; a row without
 * one is checked on the Sandbox chain (was the EIP-3009 authorization or the Permit2 nonce used, by which transaction?) and recorded as
 * charged without an answer when it was used, removed when it was not and can no longer be: a settlement may still be
 * at a facilitator (or in the chain's pool), so an authorization unused before its validBefore is kept for a later
 * sweep. Errors are logged, never thrown: a row that
 * cannot be read now is kept for the next try.
 */
export async function resolveSettlementJournal<D extends JournalDeps>(
  deps: D,
  options: ResolveJournalOptions<D> = {},
): Promise<JournalResolution> {
  const { before = new Date().toISOString(), skip, owner } = options
  const log = deps.log ?? ((message: string) => console.error(message))
  const done: JournalResolution = {
    recovered: 0,
    undelivered: 0,
    notSettled: 0,
    unverifiable: 0,
    alreadyRecorded: 0,
    kept: 0,
  }
  const me = processOwnerOf(deps.db)
  const gone = new Map<string | null, Promise<boolean>>()
  const ownerGone = (owner: string | null) => {
    let answer = gone.get(owner)
    if (!answer) gone.set(owner, (answer = me.isGone(owner)))
    return answer
  }
  for (const row of await listJournalRows(deps.db, before, owner)) {
    if (skip?.has(row.id)) continue
    try {
      if (owner === undefined && row.owner !== me.id && !(await ownerGone(row.owner))) continue
      done[await resolveRow(deps, row, log, options)]++
    } catch (error) {
      done.kept++
      log(`svc: the settlement journal entry ${row.id} could not be resolved yet: ${toSvcError(error).message}`)
    }
  }
  if (done.recovered + done.undelivered > 0)
    log(
      `svc: ${done.recovered + done.undelivered} payment(s) were charged without the buyer getting the answer (svc stopped or the buyer left mid-payment): recorded, see svc settlements`,
    )
  return done
}

async function resolveRow<D extends JournalDeps>(
  deps: D,
  row: SettlementJournalRow,
  log: (message: string) => void,
  { channelRow, escrowRow }: Pick<ResolveJournalOptions<D>, 'channelRow' | 'escrowRow'>,
): Promise<keyof JournalResolution> {
  // A claim whose process died before sending its settlement: nothing reached the facilitator (PostgreSQL's claims).
  if (row.state === 'claimed') {
    await deleteJournalRow(deps.db, row.id)
    return 'notSettled'
  }
  // A payment channel's deposit or refund: its transaction and the channel on chain say what to record.
  if (row.channel_action !== null) return channelRow ? channelRow(deps, row, log) : 'kept'
  if ((row as { escrow?: string | null }).escrow != null) return escrowRow ? escrowRow(deps, row, log) : 'kept'
  if (row.settlement_id !== null) {
    await markJournalUndelivered(deps.db, { ...row, settlement_id: row.settlement_id })
    return 'undelivered'
  }
  const source = await chainOf(deps, row)
  if (source === 'kept') return 'kept'
  if ('why' in source) {
    await deleteJournalRow(deps.db, row.id)
    log(
      `svc: the unfinished payment ${row.id} (${row.method} ${row.path}, payer ${row.payer}) cannot be checked: ${source.why}`,
    )
    return 'unverifiable'
  }
  const use = await findSettlementOf(source.client, row, row.nonce as string, source.range)
  if (!use.used) {
    // A real network's time is the wall clock's; the Sandbox chain's follows svc's clock (time travel).
    const clock = row.environment === 'production' ? undefined : deps.clock
    const nowSeconds = BigInt((clock?.nowSeconds() ?? Math.floor(Date.now() / 1000)) - validBeforeMarginSeconds)
    // The facilitator said it failed for good (journal.ts finalRefusal): unused now is unused for good.
    if (
      row.state !== 'refused' &&
      row.valid_before !== null &&
      /^[0-9]+$/.test(row.valid_before) &&
      BigInt(row.valid_before) >= nowSeconds
    )
      return 'kept'
    await deleteJournalRow(deps.db, row.id)
    return 'notSettled'
  }
  if (use.transaction === undefined) return 'kept'
  const settlement: SettlementRow = {
    id: newId('stl'),
    api_id: row.api_id,
    endpoint_id: row.ephemeral ? null : row.endpoint_id,
    user_id: row.user_id,
    environment: row.environment,
    network: row.network,
    asset: row.asset,
    amount: use.amount,
    payer: row.payer,
    pay_to: row.pay_to,
    transaction: use.transaction,
    method: row.method,
    path: row.path,
    created_at: row.created_at,
    chain_epoch: row.chain_epoch,
    delivered: 0,
    builder_code: null,
  }
  return (await recordJournalSettlement(deps.db, row, settlement)) ? 'recovered' : 'alreadyRecorded'
}

/** Where a row's payment is checked: a chain and the range of its logs, or why it cannot be, or not now. */
type RowChain = { client: PublicClient; range: LogRange } | { why: string } | 'kept'

/**
 * The chain a row was paid on: the Sandbox chain (a development row of its network and epoch), or a production
 * network svc has the RPC of (`--rpc`), its logs read in bounded ranges from the row's journaled block.
 */
async function chainOf(deps: JournalDeps, row: SettlementJournalRow): Promise<RowChain> {
  // A row without a nonce: a Permit2 payment journaled before svc wrote down its nonce (or a payload naming none).
  const noNonce = { why: 'it was paid through Permit2 before svc journaled Permit2 nonces' }
  if (row.environment === 'production') {
    const client = await deps.productionChains?.clientOf(row.network)
    if (!client)
      return {
        why: `no RPC is given for ${row.network}: start svc with --rpc ${row.network}=<url> to check such payments on their chain`,
      }
    if (row.nonce === null) return noNonce
    return { client, range: await deps.productionChains!.logRange(client, row.from_block, row.created_at) }
  }
  // A team Sandbox's process that does not own the chain reads the owner's (server/cluster/chain-owner-view.ts).
  const chain = deps.chain?.sandboxChain ?? deps.chainOwner?.reader()
  // A server without the chain services cannot check Sandbox payments: they wait for a start with them.
  if (!chain) return 'kept'
  if (row.nonce === null) return noNonce
  if (row.network !== chain.network) return { why: 'its network cannot be read from here' }
  if (row.chain_epoch !== chain.epoch) return { why: 'the Sandbox chain it was paid on is gone' }
  if (chain.restarting) return 'kept'
  return { client: chain.client, range: {} }
}

/** Whether a row's payment reached the chain and, when it did, its transaction and the amount it moved (when found). */
type SettlementOnChain =
  | { used: false }
  | { used: true; transaction: Hex; amount: string }
  | { used: true; transaction: undefined }

/**
 * Asks the chain about a row's nonce: EIP-3009's (the token's `authorizationState` and `AuthorizationUsed` log; the
 * amount is the row's) or Permit2's (`nonceBitmap` and the settling transaction; the amount is what its `Transfer`
 * moved, upto's charge).
 */
export async function findSettlementOf(
  client: PublicClient,
  row: SettlementJournalRow,
  nonce: string,
  range: LogRange,
): Promise<SettlementOnChain> {
  if (row.transfer_method === 'permit2') {
    const use = await findPermit2NonceUse(
      client,
      {
        asset: row.asset as Address,
        owner: row.payer as Address,
        payTo: row.pay_to as Address,
        nonce,
        maxAmount: BigInt(row.amount),
      },
      range,
    )
    if (!use.used) return use
    return use.transaction === undefined || use.amount === undefined
      ? { used: true, transaction: undefined }
      : { used: true, transaction: use.transaction, amount: use.amount.toString() }
  }
  const use = await findAuthorizationUse(
    client,
    {
      asset: row.asset as Address,
      authorizer: row.payer as Address,
      nonce: nonce as Hex,
    },
    range,
  )
  if (!use.used) return use
  return use.transaction === undefined
    ? { used: true, transaction: undefined }
    : { used: true, transaction: use.transaction, amount: row.amount }
}
