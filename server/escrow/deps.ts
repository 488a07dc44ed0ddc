import type { PaymentsDeps } from '../payments/index.js'

/**
 * What escrow/ reads of the server's deps (server/deps.ts's `ServerDeps` is one), declared here so escrow/ stays
 * below the rooms that build them: the paid path's (the database, the install's secrets, the chain, svc's clock, the
 * live events).
 */
export type EscrowDeps = PaymentsDeps
