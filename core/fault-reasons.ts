/**
 * The reason codes a facilitator of the exact EVM scheme answers (`invalidReason` of a verify, `errorReason` of a
 * settle), each with what it means and what to do, for `svc fault add verify|settle --reason`, the paywall page's
 * words (server/gateway/paywall/browser/messages.ts) and docs/reference/errors.md.
 *
 * `@x402/evm` defines them in `src/exact/facilitator/errors.ts` but does not export them from any entry point, so they
 * are listed here; test/core/fault-reasons.test.ts reads the installed package and fails when it has a code this
 * list lacks (or the other way round). The last ones are svc's facilitator's own: five it answers before the scheme is
 * asked (chain/facilitator/facilitator.ts, chain/facilitator/client.ts), and its checks of a sponsored approval.
 * The meanings were written from where each code is produced: `@x402/evm`'s exact facilitator (eip3009.ts,
 * eip3009-utils.ts, permit2.ts, shared/permit2.ts, shared/erc20approval.ts, shared/settleReceipt.ts) and svc's.
 */

/** A reason code, what went wrong (one line a person reads, also inside a sentence) and what the buyer or seller does. */
export type Reason = { code: string; meaning: string; fix: string }

const signAgain = 'sign a new payment from a fresh 402'
const clocks =
  "check the buyer's clock; after `svc time advance` sign by svc's clock (`svc time show`; `svc pay` and startSandbox's buyer do)"

export const exactEvmReasonRecords = [
  {
    code: 'asset_not_deployed_contract',
    meaning: "the requirements' asset address has no contract on the chain (an account, or nothing)",
    fix: "the seller names the token deployed on that network (on the Sandbox chain: its USDC, the ready line's `usdc`)",
  },
  {
    code: 'invalid_exact_evm_scheme',
    meaning:
      'the payment or the requirements are not of the exact scheme (also a settle whose re-verification gave no reason)',
    fix: "the buyer pays one of the 402's offers as it is, without changing its scheme",
  },
  {
    code: 'invalid_exact_evm_network_mismatch',
    meaning: 'the payment was signed for another network',
    fix: `the payment's \`accepted.network\` must be the requirements' network: ${signAgain}`,
  },
  {
    code: 'invalid_exact_evm_missing_eip712_domain',
    meaning:
      "the requirements lack `extra.name` and `extra.version`, the token's EIP-712 domain an EIP-3009 signature needs",
    fix: "the seller's offer carries the token's name and version (svc's gateway adds them for its USDC)",
  },
  {
    code: 'invalid_exact_evm_recipient_mismatch',
    meaning: 'the payment was signed to another recipient',
    fix: `the authorization's \`to\` must be the requirements' \`payTo\` (the seller's may have changed): ${signAgain}`,
  },
  {
    code: 'invalid_exact_evm_signature',
    meaning: 'the signature does not match the payment',
    fix: "sign with the key of `from`, over the token's EIP-712 domain of the offer (name, version, chain id, token), and change nothing after signing",
  },
  {
    code: 'invalid_exact_evm_payload_authorization_valid_before',
    meaning:
      "the signed payment expired before it reached the chain: its `validBefore` is past, or less than 6 s ahead, by the facilitator's clock",
    fix: "sign again from a fresh 402: x402 clients set `validBefore` to now + the offer's `maxTimeoutSeconds`, so a payment held longer expires. Just signed? Then the clocks disagree: check the buyer's clock; after `svc time advance` svc's clock is ahead, so sign by it (`svc time show`; `svc pay` and startSandbox's buyer do) or `svc revert` to an earlier snapshot. A seller whose buyers sign long before paying raises the endpoint's `max_timeout_seconds`",
  },
  {
    code: 'invalid_exact_evm_payload_authorization_valid_after',
    meaning: "the signed payment is not valid yet: its `validAfter` is ahead of the facilitator's clock",
    fix: `sign with \`validAfter\` at or before now (x402 clients sign 0), or wait until then; ${clocks}`,
  },
  {
    code: 'invalid_exact_evm_authorization_value',
    meaning: "(x402 v1) the authorization's value is not the requirements' `maxAmountRequired`",
    fix: 'sign exactly the price of the offer',
  },
  {
    code: 'invalid_exact_evm_payload_authorization_value_mismatch',
    meaning: "the authorization's value is not the requirements' `amount`",
    fix: 'sign exactly the price of the offer you pay (the exact scheme charges that amount, no more, no less)',
  },
  {
    code: 'invalid_exact_evm_transaction_failed',
    meaning: 'the settlement transaction reverted, or failed for a reason no other code names',
    fix: "read `errorMessage` (the revert's reason) and the transaction; once the cause is fixed, pay again",
  },
  {
    code: 'invalid_exact_evm_transfer_event_mismatch',
    meaning:
      'the settlement was mined, but its receipt holds no Transfer of the signed amount from the payer to `payTo`',
    fix: "the seller's asset must be a token whose `transferWithAuthorization` moves exactly the signed amount (USDC does)",
  },
  {
    code: 'invalid_exact_evm_token_name_mismatch',
    meaning: "the requirements' `extra.name` is not what the token's `name()` answers",
    fix: "the seller's offer names the token's own name (the EIP-712 domain's, e.g. `USDC` on the Sandbox chain)",
  },
  {
    code: 'invalid_exact_evm_token_version_mismatch',
    meaning: "the requirements' `extra.version` is not what the token's `version()` answers",
    fix: "the seller's offer names the token's own EIP-712 version",
  },
  {
    code: 'invalid_exact_evm_eip3009_not_supported',
    meaning: 'the asset does not implement EIP-3009 (`authorizationState` fails), so the transfer cannot be simulated',
    fix: 'pay through Permit2 (the offer\'s `extra.assetTransferMethod: "permit2"`), or sell in a token with EIP-3009 such as USDC',
  },
  {
    code: 'invalid_exact_evm_nonce_already_used',
    meaning: 'this signed payment was already used',
    fix: `its EIP-3009 nonce is spent on the chain (a replay, or a payment settled before): ${signAgain}`,
  },
  {
    code: 'invalid_exact_evm_insufficient_balance',
    meaning: 'the wallet does not hold enough USDC for this payment',
    fix: 'fund the payer: `svc faucet ADDRESS` on the Sandbox chain, then `svc balances ADDRESS` to check',
  },
  {
    code: 'invalid_exact_evm_transaction_simulation_failed',
    meaning:
      'the transfer would fail on the chain (its simulation reverted, with no cause found among balance, nonce and domain)',
    fix: "read `invalidMessage`; check the token address, the signature's domain and the payer's balance, then pay again",
  },
  {
    code: 'invalid_permit2_spender',
    meaning: "the Permit2 authorization's spender is not x402's Permit2 proxy of the scheme",
    fix: "sign with an x402 client (`@x402/evm`'s exact or upto client), which names the proxy as spender",
  },
  {
    code: 'invalid_permit2_recipient_mismatch',
    meaning: "the Permit2 witness's `to` is not the requirements' `payTo`",
    fix: signAgain,
  },
  {
    code: 'permit2_deadline_expired',
    meaning: 'the signed Permit2 transfer expired',
    fix: `its \`deadline\` is past or less than 6 s ahead: ${signAgain}; ${clocks}`,
  },
  {
    code: 'permit2_not_yet_valid',
    meaning:
      "the signed Permit2 transfer is not valid yet: its witness's `validAfter` is ahead of the facilitator's clock",
    fix: `sign with \`validAfter\` at or before now, or wait; ${clocks}`,
  },
  {
    code: 'permit2_amount_mismatch',
    meaning: "the Permit2 transfer's permitted amount is not the requirements' `amount`",
    fix: 'sign exactly the price of the offer',
  },
  {
    code: 'permit2_token_mismatch',
    meaning: "the Permit2 transfer's token is not the requirements' asset",
    fix: 'sign a transfer of the token the offer names',
  },
  {
    code: 'invalid_permit2_signature',
    meaning:
      'the Permit2 signature does not verify for its `from` (or Permit2 refused it at settlement as invalid or expired)',
    fix: 'sign with the key of `from` over the Permit2 witness transfer as the x402 client builds it',
  },
  {
    code: 'permit2_allowance_required',
    meaning: 'the wallet has not allowed Permit2 to move its USDC',
    fix: 'approve Permit2 once (`svc faucet ADDRESS --approve-permit2`), or let the client sign an EIP-2612 permit the facilitator sponsors (`svc pay --rpc-url`)',
  },
  {
    code: 'permit2_simulation_failed',
    meaning: "the Permit2 settlement's simulation reverted, with no cause found among proxy, balance and allowance",
    fix: "read `invalidMessage` (svc's names a Permit2 nonce already used: a replay); else check the token and the signature, and pay again",
  },
  {
    code: 'permit2_insufficient_balance',
    meaning: 'the wallet does not hold enough of the token for this Permit2 payment',
    fix: 'fund the payer: `svc faucet ADDRESS` on the Sandbox chain',
  },
  {
    code: 'permit2_proxy_not_deployed',
    meaning: "x402's Permit2 proxy contract is not deployed on this chain",
    fix: 'pay by EIP-3009 instead, or use a chain that has the proxy (the Sandbox chain and its twins do)',
  },
  {
    code: 'permit2_invalid_amount',
    meaning:
      "x402's Permit2 proxy reverted the settlement with InvalidAmount: the amount to move is not one the signed transfer allows",
    fix: `sign the offer's price: ${signAgain}`,
  },
  {
    code: 'permit2_invalid_destination',
    meaning: "x402's Permit2 proxy reverted the settlement with InvalidDestination (the witness's recipient)",
    fix: `the witness's \`to\` must be the offer's \`payTo\`: ${signAgain}`,
  },
  {
    code: 'permit2_invalid_owner',
    meaning: "x402's Permit2 proxy reverted the settlement with InvalidOwner (the transfer's owner)",
    fix: "the Permit2 authorization's `from` must be the signer and payer",
  },
  {
    code: 'permit2_payment_too_early',
    meaning:
      "x402's Permit2 proxy reverted the settlement with PaymentTooEarly: the chain's time is before the witness's `validAfter`",
    fix: `sign with \`validAfter\` at or before the chain's time; ${clocks}`,
  },
  {
    code: 'permit2_invalid_nonce',
    meaning: 'Permit2 reverted the settlement with InvalidNonce: the Permit2 nonce was already used',
    fix: `a replay, or a payment settled before: ${signAgain}`,
  },
  {
    code: 'permit2_2612_amount_mismatch',
    meaning:
      "x402's Permit2 proxy reverted with Permit2612AmountMismatch: the sponsored EIP-2612 permit's value is not the amount needed",
    fix: 'sign the EIP-2612 permit for the amount the x402 client asks (let the client build it)',
  },
  {
    code: 'invalid_erc20_approval_extension_format',
    meaning: "the payment's `erc20ApprovalGasSponsoring` extension does not match the extension's schema",
    fix: 'let the x402 client build the extension (from, asset, spender, amount, signedTransaction, version)',
  },
  {
    code: 'erc20_approval_from_mismatch',
    meaning: "the sponsored approval's `from` is not the payer",
    fix: "sign the approval with the payer's key",
  },
  {
    code: 'erc20_approval_asset_mismatch',
    meaning: "the sponsored approval's asset is not the requirements' asset",
    fix: 'approve the token the offer names',
  },
  {
    code: 'erc20_approval_spender_not_permit2',
    meaning: "the sponsored approval's spender is not the Permit2 contract",
    fix: 'approve Permit2 (0x000000000022D473030F116dDEE9F6B43aC78BA3)',
  },
  {
    code: 'erc20_approval_tx_wrong_target',
    meaning: 'the signed approval transaction is not sent to the token contract',
    fix: "sign `approve()` as a transaction to the offer's token",
  },
  {
    code: 'erc20_approval_tx_wrong_selector',
    meaning: 'the signed approval transaction does not call `approve()`',
    fix: 'sign an `approve(Permit2, amount)` call',
  },
  {
    code: 'erc20_approval_tx_wrong_spender',
    meaning: 'the signed `approve()` names a spender other than Permit2',
    fix: 'approve Permit2 as spender',
  },
  {
    code: 'erc20_approval_tx_invalid_calldata',
    meaning: "the signed `approve()`'s calldata does not decode",
    fix: 'let the x402 client encode the approval',
  },
  {
    code: 'erc20_approval_tx_signer_mismatch',
    meaning: 'the approval transaction was signed by another account than the payer',
    fix: "sign the approval with the payer's key",
  },
  {
    code: 'erc20_approval_tx_invalid_signature',
    meaning: "the approval transaction's signer cannot be recovered",
    fix: 'sign the approval transaction again',
  },
  {
    code: 'erc20_approval_tx_parse_failed',
    meaning: 'the signed approval transaction does not parse, or is not an ERC-20 `approve()`',
    fix: 'send a signed, serialized `approve(Permit2, amount)` transaction',
  },
  {
    code: 'erc20_approval_tx_failed',
    meaning:
      'the sponsored approval could not be sent or reverted (the schemes answer it as `erc20_approval_broadcast_failed`; a fault may answer it)',
    fix: "read the message; sign a new approval at the payer's next nonce",
  },
  {
    code: 'erc20_approval_broadcast_failed',
    meaning: 'the sponsored approval was not sent or reverted, so the payment was not settled',
    fix: "read `errorMessage` (svc's names a used nonce or a fee below the base fee); sign a new approval and pay again",
  },
  {
    code: 'invalid_eip2612_extension_format',
    meaning: "the payment's `eip2612GasSponsoring` extension does not match the extension's schema",
    fix: 'let the x402 client build the permit extension',
  },
  {
    code: 'eip2612_from_mismatch',
    meaning: "the sponsored EIP-2612 permit's owner is not the payer",
    fix: "sign the permit with the payer's key",
  },
  {
    code: 'eip2612_asset_mismatch',
    meaning: "the sponsored EIP-2612 permit is for another token than the requirements' asset",
    fix: "sign the permit on the offer's token",
  },
  {
    code: 'eip2612_spender_not_permit2',
    meaning: "the sponsored EIP-2612 permit's spender is not Permit2",
    fix: 'sign the permit for Permit2 as spender',
  },
  {
    code: 'eip2612_deadline_expired',
    meaning: "the sponsored EIP-2612 permit's deadline is past or less than 6 s ahead",
    fix: `${signAgain}; ${clocks}`,
  },
  {
    code: 'invalid_exact_evm_failed_to_parse_signature',
    meaning: 'at settlement, the signature could not be read (neither a plain signature nor an ERC-6492 one)',
    fix: 'send the signature as the x402 client makes it (65-byte ECDSA, EIP-1271, or ERC-6492 wrapped)',
  },
  {
    code: 'unsupported_payload_type',
    meaning:
      'the payload is not one the scheme takes (upto takes Permit2 only; Permit2 exact takes the exact scheme only)',
    fix: 'pay the offer with the payload its scheme and `extra.assetTransferMethod` ask for',
  },
  {
    code: 'invalid_transaction_state',
    meaning:
      'the settlement transaction was sent, but neither confirmed nor recorded as pending, so its outcome is unknown (a batch-settlement deposit answers it)',
    fix: 'look the transaction up on the chain before paying again (it may have been sent)',
  },
  {
    code: 'eip6492_factory_not_allowed',
    meaning:
      "an ERC-6492 signature would deploy the payer's smart wallet through a factory the facilitator does not allow",
    fix: "deploy the smart wallet first (svc's facilitator allows no factory), then pay",
  },
  {
    code: 'smart_wallet_deployment_failed',
    meaning: "the ERC-6492 deployment of the payer's smart wallet reverted",
    fix: 'deploy the wallet yourself and check why it reverts, then pay',
  },
  {
    code: 'settlement_pending',
    meaning:
      'the settlement transaction was sent, but its receipt was not seen (the RPC failed or timed out): not final',
    fix: 'check the `transaction` on the chain; settling the same payment again answers its outcome',
  },
  // svc's facilitator, before the scheme is asked.
  {
    code: 'invalid_payload',
    meaning:
      "the `/verify` or `/settle` body or its `paymentPayload` is malformed (x402's schemas, or an address, amount, nonce or signature); also a verify fault without `--reason`",
    fix: '`invalidMessage` names the first wrong field: send the payload the x402 client makes',
  },
  {
    code: 'invalid_payment_requirements',
    meaning: "the body's `paymentRequirements` are malformed (x402's schemas, or an address, amount or timeout)",
    fix: '`invalidMessage` names the first wrong field: pass the requirements of the 402 as they are',
  },
  {
    code: 'invalid_network',
    meaning:
      "svc's facilitator does not settle on that network (v2: the Sandbox chain's and its twins' CAIP-2 ids; v1: a twin's name)",
    fix: "pay on the Sandbox chain (the ready line's `network`), or start svc with the twin you need",
  },
  {
    code: 'unsupported_scheme',
    meaning: "svc's facilitator has no such scheme (v2: exact, upto, batch-settlement; v1: exact)",
    fix: 'offer and pay one of those schemes',
  },
  {
    code: 'invalid_x402_version',
    meaning: "the payment's `x402Version` is neither 1 nor 2",
    fix: 'use an x402 client of version 1 or 2',
  },
  // svc's facilitator, after the scheme: the checks of a sponsored ERC-20 approval x402 leaves out
  // (chain/facilitator/erc20-approval-checks.ts).
  {
    code: 'erc20_approval_tx_wrong_chain',
    meaning: 'the sponsored approval is signed for another chain id (or none)',
    fix: 'sign the approval for the chain of the offer',
  },
  {
    code: 'erc20_approval_tx_has_value',
    meaning: 'the sponsored approval transaction sends ETH',
    fix: 'sign the approval with value 0',
  },
  {
    code: 'erc20_approval_tx_gas_too_high',
    meaning: 'the sponsored approval asks for more than 200,000 gas, the most svc sponsors',
    fix: 'sign the approval with a gas limit of at most 200,000 (an `approve` takes about 46,000)',
  },
  {
    code: 'erc20_approval_tx_fee_too_high',
    meaning: "the sponsored approval's gas limit × max fee is above 0.01 ETH, the most svc sponsors",
    fix: 'sign the approval with a lower max fee per gas',
  },
  {
    code: 'erc20_approval_tx_fee_too_low',
    meaning: "the sponsored approval's max fee per gas is below the chain's base fee now",
    fix: 'sign the approval again at the current fee',
  },
  {
    code: 'erc20_approval_amount_too_low',
    meaning: "the sponsored approval lets Permit2 spend less than the payment's amount",
    fix: 'approve at least the price',
  },
  {
    code: 'erc20_approval_amount_mismatch',
    meaning: 'the extension names another amount than the signed approval',
    fix: "let the extension's `amount` be the approval's",
  },
  {
    code: 'erc20_approval_tx_wrong_nonce',
    meaning: "the sponsored approval's nonce is not the payer's next one (the payer sent another transaction since)",
    fix: "sign the approval again at the payer's next nonce",
  },
] as const satisfies readonly Reason[]

/** The codes of {@link exactEvmReasonRecords}: what a verify or settle fault may answer (`svc fault reasons`). */
export const exactEvmReasons = exactEvmReasonRecords.map((reason) => reason.code)

export type ExactEvmReason = (typeof exactEvmReasonRecords)[number]['code']

const known: ReadonlySet<string> = new Set(exactEvmReasons)

/** Whether `code` is a reason the exact EVM scheme's facilitator answers. */
export const isExactEvmReason = (code: string): code is ExactEvmReason => known.has(code)

/**
 * The upto EVM scheme's own reasons (`@x402/evm`'s `src/upto/facilitator/errors.ts`; it answers the exact scheme's
 * Permit2, approval and asset reasons above too).
 */
export const uptoEvmReasonRecords = [
  {
    code: 'invalid_upto_evm_scheme',
    meaning: 'the payment or the requirements are not of the upto scheme',
    fix: 'pay the upto offer of the 402 as it is',
  },
  {
    code: 'invalid_upto_evm_network_mismatch',
    meaning: 'the upto payment was signed for another network',
    fix: signAgain,
  },
  {
    code: 'upto_facilitator_mismatch',
    meaning: 'the upto witness names another facilitator than the one asked to settle',
    fix: "sign with the facilitator address the offer's `extra.facilitatorAddress` names",
  },
  {
    code: 'invalid_upto_evm_payload_settlement_exceeds_amount',
    meaning: 'the amount to settle is above the maximum the buyer signed',
    fix: "the seller charges at most the signed maximum (the offer's `amount`)",
  },
  {
    code: 'invalid_upto_evm_transaction_failed',
    meaning: 'the upto settlement transaction reverted, or failed for a reason no other code names',
    fix: 'read `errorMessage` and the transaction; once the cause is fixed, pay again',
  },
  {
    code: 'upto_amount_exceeds_permitted',
    meaning:
      "x402's upto proxy reverted with AmountExceedsPermitted: the settled amount is above the permitted maximum",
    fix: 'the seller charges at most the signed maximum',
  },
  {
    code: 'upto_unauthorized_facilitator',
    meaning:
      "x402's upto proxy reverted with UnauthorizedFacilitator: the sender is not the facilitator the buyer signed",
    fix: 'settle through the facilitator the witness names',
  },
] as const satisfies readonly Reason[]

const paymentReasons: ReadonlyMap<string, Reason> = new Map(
  [...exactEvmReasonRecords, ...uptoEvmReasonRecords].map((reason) => [reason.code, reason]),
)

/** What an exact or upto reason code means (`the signed payment is not valid yet …`), or undefined for another code. */
export const paymentReasonMeaning = (code: string): string | undefined => paymentReasons.get(code)?.meaning
