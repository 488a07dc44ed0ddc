/**
 * The door of chain/faults/: what the other rooms use, named. Another room imports only this file
 * (test/architecture/layers.test.ts; written by test/architecture/doors.ts); the files inside import each other
 * directly.
 */
export { faultMessage, injectedSettleAnswer, injectedVerifyAnswer } from './answers.js'
export { createFaultBook, type Fault, type FaultBook, type FaultKind, type FaultStore } from './book.js'
