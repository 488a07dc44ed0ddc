import type { PaymentsDeps } from '../payments/index.js'

/**
 * What channels/ reads of the server's deps (server/deps.ts's `ChannelsDeps` is one), declared here so channels/ stays
 * below the rooms that build them: the paid path's, which the batch-settlement scheme shares.
 */
export type ChannelsDeps = PaymentsDeps
