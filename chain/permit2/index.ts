/**
 * The door of chain/permit2/: what the other rooms use, named. Another room imports only this file
 * (test/architecture/layers.test.ts; written by test/architecture/doors.ts); the files inside import each other
 * directly.
 */
export { approveFor, approvePermit2For } from './approval.js'
export { installPermit2Contracts } from './contracts.js'
export { explainPermit2Refusal } from './diagnosis.js'
export { findPermit2NonceUse, isPermit2NonceSpent } from './nonces.js'
