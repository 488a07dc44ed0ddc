/** The Sandbox chain's own tables: its epochs, the team Sandbox's chain owner, the injected faults. */
import type { Generated } from 'kysely'

/** The Sandbox chains this data dir has seen, the newest last (see chain/epoch.ts). */
export type SandboxChainEpochsTable = {
  epoch: string
  seq: number
  started_at: string
  /** Why a new chain: `new data dir`, `fresh chain`, `chain state was reset`, `anvil exited` … */
  reason: string
  /** How far svc's clock is ahead of the machine's on this chain (`svc time advance`), in milliseconds. */
  clock_offset_ms: Generated<number>
}

/** The team Sandbox's chain owner (PostgreSQL; migration 2026_11_28_01): one row, id 1. */
export type SandboxChainOwnerTable = {
  id: number
  /** The owning process's id (server/db/process-owner.ts). */
  owner: string
  /** Where the other processes reach it (svc serve --advertise-url). */
  url: string
  /** The chain's epoch; null while the owner starts it. */
  epoch: string | null
  started_at: string
}

/** PostgreSQL only (migration 2026_11_27_06): the Sandbox's injected faults, shared by every process (chain/faults). */
export type SandboxFaultsTable = {
  id: string
  seq: Generated<number>
  kind: string
  reason: string | null
  delay_ms: number | null
  status: number | null
  drop: boolean
  api: string | null
  times: number | null
  remaining: number | null
  hits: Generated<number>
  created_at: string
}
