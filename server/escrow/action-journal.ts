import type { EscrowActionStore } from '../db/index.js'

/** What svc's server asks of the facilitator's escrow-action journal (chain/auth-capture's, as `channelActions`). */
export type EscrowActionJournalStore = { keepIn(store?: EscrowActionStore): void }

/**
 * The escrow-action journal of the chain's facilitator (`facilitator.escrowActions`), when it has one: the facilitator
 * of a build without the auth-capture scheme has none, and then there is nothing to move into the database.
 */
export const escrowActionJournalOf = (facilitator: object | undefined): EscrowActionJournalStore | undefined =>
  (facilitator as { escrowActions?: EscrowActionJournalStore } | undefined)?.escrowActions
