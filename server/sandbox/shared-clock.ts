import type { ChainServices } from '../../chain/services.js'
import type { Clock } from '../../core/clock.js'
import { toSvcError } from '../../core/errors.js'
import type { Kysely } from 'kysely'
import { type Database, findLatestChainEpoch, notificationsOf } from '../db/index.js'
import { alignChainTime } from './chain-time.js'

/** The channel sandbox_chain_epochs' trigger notifies, with the epoch, when svc's clock offset moves (migration 2026_11_27_06). */
const clockChannel = 'svc_clock'

/**
 * svc's clock offset across the processes of one PostgreSQL database: `svc time advance` (or reset) through one
 * writes the offset (server/sandbox/time-travel.ts) and its trigger NOTIFYs `svc_clock`; every process then reads the
 * offset of that epoch and takes it, so ttl endpoints, session JWTs and the facilitator's validBefore are judged alike
 * behind any load balancer. The notification names the epoch, not the offset: the value read is the latest committed,
 * whatever order notifications arrive in. A process with a chain of its own mines its chain up to the new time, as
 * the process that moved it did. After a lost connection listens again, the newest epoch's offset is read. A process
 * without a chain (`--sandbox-chain none`) reads the newest epoch's offset at start too.
 * @returns the function that stops listening
 */
export async function shareClock(options: {
  db: Kysely<Database>
  clock: Clock
  /** The chain to mine up to a new time: this process's, when it runs one (a getter: it may come and go). */
  chain?: ChainServices | (() => ChainServices | undefined) | undefined
  /**
   * Runs a whole-sandbox change after those asked before (the SandboxState's), so a read is not overtaken by this
   * process's own `svc time advance` between moving its clock and writing it. @defaultValue at once
   */
  exclusive?: (<T>(change: () => Promise<T>) => Promise<T>) | undefined
  log?: ((message: string) => void) | undefined
}): Promise<() => Promise<void>> {
  const { db, clock, exclusive = (change) => change(), log = () => {} } = options
  const chainOf = typeof options.chain === 'function' ? options.chain : () => options.chain as ChainServices | undefined
  const notifications = notificationsOf(db)
  if (!notifications) return async () => {}
  /** Takes the offset of `epoch` (the newest one's without). */
  const take = (epoch?: string) =>
    exclusive(async () => {
      const row = epoch
        ? await db
            .selectFrom('sandbox_chain_epochs')
            .select('clock_offset_ms')
            .where('epoch', '=', epoch)
            .executeTakeFirst()
        : await findLatestChainEpoch(db)
      if (!row || row.clock_offset_ms === clock.offsetMs) return
      clock.setOffset(row.clock_offset_ms)
      const chain = chainOf()
      if (chain) await alignChainTime(chain, clock)
    }).catch((error) => log(`svc: taking svc's clock offset from the database failed: ${toSvcError(error).message}`))
  const subscription = notifications.subscribe(clockChannel, {
    message: (epoch) => void take(epoch || undefined),
    reset: () => void take(),
  })
  await subscription.ready
  if (!chainOf()) await take()
  return () => subscription.stop()
}
