/**
 * The door of server/channels/: what the other rooms of server/ use, named. Another room imports only this file
 * (test/architecture/layers.test.ts); the files inside import each other directly.
 */
export { resolveChannelActions } from './action-recovery.js'
export type { ChannelsDeps } from './deps.js'
export { type BatchContext, payBatch } from './flow.js'
export { channelJournalFields, resolveChannelJournalRow } from './journal.js'
export { createBatchRecords } from './records.js'
export { createBatchServers } from './servers.js'
