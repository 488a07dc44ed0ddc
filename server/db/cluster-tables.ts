/** PostgreSQL only: what several processes on one database share (cache version, event ring, claims in flight). */

/** PostgreSQL only (migration 2026_11_26_07): the label of the gateway's caches, moved by triggers on every write. */
export type CacheVersionTable = { id: number; version: number }

/** PostgreSQL only: the live stream's replay ring shared by every process (server/cluster/payment-events.ts). */
export type PaymentEventsTable = {
  /** Cluster-wide, in commit order, without holes: from `payment_event_counter`. */
  id: number
  user_id: string
  /** The event's JSON without its id. */
  event: string
}

/** PostgreSQL only: the last payment event id handed out (one row, id 1). */
export type PaymentEventCounterTable = { id: number; last: number }

/**
 * PostgreSQL only (migration 2026_11_27_03): the payment holding a one-time endpoint, then its tombstone
 * (server/cluster/payment-claims.ts).
 */
export type EndpointClaimsTable = {
  endpoint_id: string
  api_id: string
  method: string
  path_pattern: string
  /** The process owner (server/db/process-owner.ts) whose request holds it. */
  claimed_by: string
  claimed_until: Date
  /** When its payment settled and the endpoint was deleted; null while a payment holds it. */
  deleted_at: Date | null
}

/** PostgreSQL only (migration 2026_11_28_05): a payment-identifier id in flight (server/db/payment-id-claims.ts). */
export type PaymentIdClaimsTable = {
  api_id: string
  payer: string
  payment_id: string
  /**
   * What the id's first request asks for (server/payments/identifier.ts): the same again is "in flight", another is
   * reuse.
   */
  request_key: string
  /** The process owner (server/db/process-owner.ts) whose request holds it. */
  claimed_by: string
  claimed_until: Date
}

/**
 * PostgreSQL only (migration 2026_12_07_00): a running `svc serve` process and what it listens on, which no upstream
 * may target (server/db/cluster-processes.ts).
 */
export type ClusterProcessesTable = {
  /** The process owner (server/db/process-owner.ts). */
  owner: string
  /** Its machine's name (os.hostname()): a loopback address is only this machine's own. */
  host: string
  /** JSON: `[{address, port, name}]` (server/serve/own-peers.ts's OwnPeer). */
  listeners: string
  started_at: string
}
