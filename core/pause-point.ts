/**
 * Crash tests' hook (issue 21): `SVC_PAUSE_AT=<step>` makes svc stop at that step of a change that must survive a
 * `kill -9` (`chain-restart`: a new Anvil is up, the chain not yet loaded into it; `revert`: the chain is reverted,
 * the ledger not yet; `revert-recorded`: the same, the revert's way forward recorded; `settlement-record`: a payment
 * is settled on the chain, its record not yet written; `channel-action-<deposit|claim|settle|refund>`: a
 * batch-settlement action is on the chain, its outcome not yet journaled;
 * `escrow-action-<authorize|charge|capture|void|refund>`: an auth-capture escrow transaction is on the chain, its
 * outcome not yet journaled (chain/auth-capture/actions.ts); `escrow-action-refund-funded`: a refund's funding (the
 * receiver's transfer to the operator) is on the chain and journaled, the refund not yet sent; `channel-record`: a channel's deposit or refund through
 * the gateway is on the chain, svc's record of it not yet written; `channel-claim-record`: the
 * gateway's channel manager's claim is on the chain and journaled, the gateway's record of it not yet written;
 * `channel-settle`: the gateway's channel manager is about to send a settle of what it claimed), after saying so on
 * stderr, so a test kills it exactly there, or breaks something there and lets it go on with SIGUSR2.
 */
export function pausePoint(step: string): Promise<void> {
  if (process.env.SVC_PAUSE_AT !== step) return Promise.resolve()
  process.stderr.write(`svc: paused at ${step} (SVC_PAUSE_AT)\n`)
  return new Promise((resolve) => process.once('SIGUSR2', () => resolve()))
}
