/**
 * The logs room of chain/, its door: searching the chain's logs in bounded ranges (ranges.ts) and finding where an
 * EIP-3009 authorization was used (authorizations.ts). Other rooms import from here, never a file inside.
 */
export { findAuthorizationUse, firstLocalBlock, type AuthorizationUse } from './authorizations.js'
export { blockAtOrBefore, searchLogRanges, type LogRange } from './ranges.js'
