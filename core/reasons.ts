/**
 * Every reason code svc answers beyond the exact and upto schemes' (core/fault-reasons.ts): the batch-settlement
 * scheme's, the auth-capture scheme's, sign-in-with-x's and svc's own, each with what it means and what to do, grouped as
 * docs/reference/errors.md shows them. The meanings were written from where each code is produced: `@x402/evm`'s
 * `src/batch-settlement/{facilitator,server}/*` and `@x402/extensions`' `src/sign-in-with-x/{validate,verify}.ts`,
 * and svc's chain/facilitator/, chain/batch-settlement/ and server/payments/sign-in-with-x.ts.
 * test/core/fault-reasons.test.ts fails when the installed `@x402/evm` defines a batch-settlement code this list lacks.
 */
import { exactEvmReasonRecords, type Reason, uptoEvmReasonRecords } from './fault-reasons.js'

export type { Reason } from './fault-reasons.js'

const clocks =
  "check the buyer's clock; after `svc time advance` sign by svc's clock (`svc time show`; `svc pay` and startSandbox's buyer do)"
const recovers =
  'the official batch-settlement client recovers by itself from the corrective 402; another client reads its channel state and signs again'

/** `@x402/evm`'s `src/batch-settlement/errors.ts`: the facilitator's verify and settle reasons, then the seller's. */
export const batchSettlementEvmReasonRecords = [
  {
    code: 'invalid_batch_settlement_evm_channel_not_found',
    meaning: 'the voucher names a channel that holds nothing on the chain (never deposited, or closed)',
    fix: 'deposit into the channel first (the client does on its first payment), or open a new one',
  },
  {
    code: 'invalid_batch_settlement_evm_token_mismatch',
    meaning: "the channel's (or the Permit2 deposit's) token is not the requirements' asset",
    fix: 'open the channel in the token the offer names',
  },
  {
    code: 'invalid_batch_settlement_evm_voucher_signature',
    meaning:
      "the voucher's signature does not verify for the channel's payer authorizer (or is not the one the seller stored)",
    fix: "sign the voucher with the channel's payer authorizer key over the channel id and cumulative amount",
  },
  {
    code: 'invalid_batch_settlement_evm_cumulative_exceeds_balance',
    meaning: "the voucher's cumulative amount is more than the channel holds",
    fix: 'top the channel up with a deposit (the client does when its balance runs low), then pay',
  },
  {
    code: 'invalid_batch_settlement_evm_cumulative_below_claimed',
    meaning: "the voucher's cumulative amount is not above what the seller already claimed",
    fix: `the buyer's view of the channel is stale: ${recovers}`,
  },
  {
    code: 'invalid_batch_settlement_evm_insufficient_balance',
    meaning: 'the payer does not hold the amount of the deposit',
    fix: 'fund the payer (`svc faucet ADDRESS`), or deposit less',
  },
  {
    code: 'invalid_batch_settlement_evm_deposit_transaction_failed',
    meaning: 'the deposit transaction reverted',
    fix: "read `errorMessage` and the transaction; check the payer's balance and authorization, then deposit again",
  },
  {
    code: 'invalid_batch_settlement_evm_claim_transaction_failed',
    meaning: "the seller's claim transaction reverted or could not be sent",
    fix: 'read `errorMessage`; the channel manager claims again on its next round',
  },
  {
    code: 'invalid_batch_settlement_evm_settle_transaction_failed',
    meaning: "the seller's settle transaction (claimed funds to the receiver) reverted or could not be sent",
    fix: 'read `errorMessage`; the channel manager settles again on its next round',
  },
  {
    code: 'invalid_batch_settlement_evm_scheme',
    meaning: 'the payment or the requirements are not of the batch-settlement scheme',
    fix: 'pay the batch-settlement offer of the 402 as it is',
  },
  {
    code: 'invalid_batch_settlement_evm_network_mismatch',
    meaning: "the payment's network is not the requirements'",
    fix: "pay on the offer's network",
  },
  {
    code: 'invalid_batch_settlement_evm_missing_eip712_domain',
    meaning: "the requirements lack the token's `extra.name` and `extra.version` an ERC-3009 deposit is signed over",
    fix: "the seller's offer carries the token's EIP-712 name and version",
  },
  {
    code: 'invalid_batch_settlement_evm_payload_authorization_valid_before',
    meaning: "the deposit's ERC-3009 authorization expired: its `validBefore` is past, or less than 6 s ahead",
    fix: `sign the deposit again; ${clocks}`,
  },
  {
    code: 'invalid_batch_settlement_evm_payload_authorization_valid_after',
    meaning:
      "the deposit's ERC-3009 authorization is not valid yet: its `validAfter` is ahead of the facilitator's clock",
    fix: `sign with \`validAfter\` at or before now; ${clocks}`,
  },
  {
    code: 'invalid_batch_settlement_evm_receive_authorization_signature',
    meaning: "the deposit's `receiveWithAuthorization` signature does not verify for the payer",
    fix: "sign the deposit with the payer's key over the token's EIP-712 domain",
  },
  {
    code: 'invalid_batch_settlement_evm_erc3009_authorization_required',
    meaning: 'an ERC-3009 deposit carries no `erc3009Authorization`',
    fix: 'let the client build the deposit (it signs the authorization the transfer method asks for)',
  },
  {
    code: 'invalid_batch_settlement_evm_refund_transaction_failed',
    meaning: 'the refund transaction reverted or could not be sent',
    fix: 'read `errorMessage`; ask for the refund again (`svc channels close URL`)',
  },
  {
    code: 'invalid_batch_settlement_evm_payload_type',
    meaning: 'the payload is none of deposit, voucher, claim, settle or refund (or a malformed permit extension)',
    fix: 'send the payload the batch-settlement client makes',
  },
  {
    code: 'invalid_batch_settlement_evm_withdraw_delay_out_of_range',
    meaning: "the channel's withdraw delay is outside 900 s to 30 days",
    fix: "open the channel with a withdraw delay in that range (the offer's `extra.withdrawDelay`)",
  },
  {
    code: 'invalid_batch_settlement_evm_channel_id_mismatch',
    meaning: 'the channel id is not the one its channel config hashes to (on this network)',
    fix: 'derive the channel id from the config, as the client does; do not change the config after',
  },
  {
    code: 'invalid_batch_settlement_evm_channel_id_invalid',
    meaning: 'the channel id is not a 32-byte hex value',
    fix: 'send the channel id as `0x` + 64 hex digits',
  },
  {
    code: 'invalid_batch_settlement_evm_receiver_mismatch',
    meaning: "the channel's receiver is not the requirements' `payTo`",
    fix: "open a channel to the seller's `payTo`",
  },
  {
    code: 'invalid_batch_settlement_evm_receiver_authorizer_mismatch',
    meaning:
      "the channel's receiver authorizer is not the one the offer names (`extra.receiverAuthorizer`), or none is named",
    fix: "open the channel with the offer's receiver authorizer (svc's facilitator's, `/supported`)",
  },
  {
    code: 'invalid_batch_settlement_evm_withdraw_delay_mismatch',
    meaning: "the channel's withdraw delay is not the offer's `extra.withdrawDelay`",
    fix: "open the channel with the offer's withdraw delay",
  },
  {
    code: 'invalid_batch_settlement_evm_authorizer_address_mismatch',
    meaning:
      "a claim or refund names a receiver authorizer other than the facilitator's signer, and carries no signature of its own",
    fix: "sign the claim or refund with the channel's receiver authorizer, or use channels that name the facilitator's",
  },
  {
    code: 'invalid_batch_settlement_evm_authorizer_not_configured',
    meaning:
      'a claim or refund carries no receiver-authorizer signature and the facilitator has no authorizer to sign it',
    fix: "sign it with the channel's receiver authorizer (svc's facilitator has one: this does not happen on svc)",
  },
  {
    code: 'invalid_batch_settlement_evm_deposit_simulation_failed',
    meaning: "the deposit's simulation reverted",
    fix: "check the payer's balance, the authorization and the token, then deposit again",
  },
  {
    code: 'invalid_batch_settlement_evm_deposit_below_min_deposit',
    meaning: 'the deposit is smaller than the least the seller takes',
    fix: "deposit at least the offer's minimum deposit",
  },
  {
    code: 'invalid_batch_settlement_evm_eip6492_factory_not_allowed',
    meaning:
      "an ERC-6492 deposit would deploy the payer's smart wallet through a factory the facilitator does not allow",
    fix: "deploy the smart wallet first (svc's facilitator allows no factory)",
  },
  {
    code: 'invalid_batch_settlement_evm_smart_wallet_deployment_failed',
    meaning: "the ERC-6492 deployment of the payer's smart wallet reverted",
    fix: 'deploy the wallet yourself and check why it reverts',
  },
  {
    code: 'invalid_batch_settlement_evm_claim_simulation_failed',
    meaning: "the seller's claim simulation reverted (a voucher the contract refuses)",
    fix: 'read `errorMessage`; the channel manager claims the other channels',
  },
  {
    code: 'invalid_batch_settlement_evm_settle_simulation_failed',
    meaning: "the seller's settle simulation reverted",
    fix: 'read `errorMessage`',
  },
  {
    code: 'invalid_batch_settlement_evm_nothing_to_settle',
    meaning: 'a settle was asked with nothing claimed since the last one',
    fix: 'claim vouchers first; nothing to do otherwise',
  },
  {
    code: 'invalid_batch_settlement_evm_refund_payload',
    meaning: "the facilitator's answer lacks the channel state a refund is built from (balance, claimed, refund nonce)",
    fix: "the seller's facilitator must answer the channel state; retry the refund",
  },
  {
    code: 'invalid_batch_settlement_evm_refund_simulation_failed',
    meaning: 'the refund simulation reverted',
    fix: 'read `errorMessage`; ask again (`svc channels close URL`)',
  },
  {
    code: 'invalid_batch_settlement_evm_rpc_read_failed',
    meaning: "the facilitator could not read the channel's state from the chain",
    fix: 'check that the chain answers (`svc up` running, the RPC URL), then retry',
  },
  {
    code: 'invalid_batch_settlement_evm_permit2_authorization_required',
    meaning: 'a Permit2 deposit carries no `permit2Authorization`',
    fix: 'let the client build the deposit',
  },
  {
    code: 'invalid_batch_settlement_evm_permit2_invalid_spender',
    meaning: "the Permit2 deposit's spender is not the scheme's deposit collector",
    fix: 'let the client build the deposit (it names the collector)',
  },
  {
    code: 'invalid_batch_settlement_evm_permit2_amount_mismatch',
    meaning: "the Permit2 deposit's permitted amount is not the deposit's amount",
    fix: 'sign the permit for the deposit amount',
  },
  {
    code: 'invalid_batch_settlement_evm_permit2_deadline_expired',
    meaning: "the Permit2 deposit's deadline is past or less than 6 s ahead",
    fix: `sign the deposit again; ${clocks}`,
  },
  {
    code: 'invalid_batch_settlement_evm_permit2_invalid_signature',
    meaning: "the Permit2 deposit's signature does not verify, or its `from` is not the channel's payer",
    fix: "sign with the channel payer's key",
  },
  {
    code: 'invalid_batch_settlement_evm_permit2_allowance_required',
    meaning: 'the payer has not allowed Permit2 to move the deposit (and no sponsored permit came with it)',
    fix: 'approve Permit2 (`svc faucet ADDRESS --approve-permit2`), or let the client sign an EIP-2612 permit',
  },
  {
    code: 'invalid_batch_settlement_evm_eip2612_amount_mismatch',
    meaning: "the sponsored EIP-2612 permit's amount is not the deposit's",
    fix: 'sign the permit for the deposit amount',
  },
  {
    code: 'invalid_batch_settlement_evm_eip2612_owner_mismatch',
    meaning:
      'defined for a sponsored EIP-2612 permit whose owner is not the payer (this version answers `eip2612_from_mismatch`)',
    fix: "sign the permit with the payer's key",
  },
  {
    code: 'invalid_batch_settlement_evm_eip2612_asset_mismatch',
    meaning: 'defined for a sponsored EIP-2612 permit on another token (this version answers `eip2612_asset_mismatch`)',
    fix: "sign the permit on the offer's token",
  },
  {
    code: 'invalid_batch_settlement_evm_eip2612_spender_mismatch',
    meaning:
      'defined for a sponsored EIP-2612 permit not for Permit2 (this version answers `eip2612_spender_not_permit2`)',
    fix: 'sign the permit for Permit2',
  },
  {
    code: 'invalid_batch_settlement_evm_eip2612_deadline_expired',
    meaning: 'defined for an expired sponsored EIP-2612 permit (this version answers `eip2612_deadline_expired`)',
    fix: `sign the permit again; ${clocks}`,
  },
  {
    code: 'invalid_batch_settlement_evm_erc20_approval_unavailable',
    meaning: 'the deposit carries a sponsored ERC-20 approval, but the facilitator cannot send one on this network',
    fix: 'approve Permit2 yourself (`svc faucet ADDRESS --approve-permit2`), or sign an EIP-2612 permit',
  },
  {
    code: 'invalid_batch_settlement_evm_cumulative_amount_mismatch',
    meaning:
      "the voucher's cumulative amount is not the seller's charged total plus this price: the buyer's view of the channel is stale",
    fix: recovers,
  },
  {
    code: 'invalid_batch_settlement_evm_channel_busy',
    meaning: 'another request on the same channel is under way at the seller',
    fix: 'send one request per channel at a time (or one channel per concurrent caller), and retry',
  },
  {
    code: 'invalid_batch_settlement_evm_verification_state_unavailable',
    meaning: 'the seller could not read its own record of the channel, so it refused rather than guess',
    fix: "retry; the seller checks its channel storage (svc's database)",
  },
  {
    code: 'invalid_batch_settlement_evm_charge_exceeds_signed_cumulative',
    meaning: 'the charge would take the channel above the cumulative amount the voucher signed',
    fix: `sign a voucher covering the price; ${recovers}`,
  },
  {
    code: 'invalid_batch_settlement_evm_missing_channel',
    meaning: 'the seller has no record of this channel',
    fix: 'deposit to open the channel with this seller (the client does), then pay',
  },
  {
    code: 'invalid_batch_settlement_evm_refund_no_balance',
    meaning: 'the channel has nothing left to refund',
    fix: 'nothing to do: retrying does not help',
  },
  {
    code: 'invalid_batch_settlement_evm_refund_amount_invalid',
    meaning: 'the refund asks for an amount that is not a whole number above 0',
    fix: "ask for a positive amount in the token's smallest unit, or for everything left (no amount)",
  },
] as const satisfies readonly Reason[]

const again = 'ask for a fresh 402 and pay it as it is (the official `AuthCaptureEvmScheme` client does)'
const notSvc = "svc's facilitator relays the `delegated` operator type only, so it never answers this code"
const lifecycle =
  "the seller's capture, void and refund go through `svc payments` / `POST /payments/{id}/…`, which read the payment's state first"

/**
 * x402's auth-capture EVM binding (escrow payments: x402-foundation/x402 @3659f12,
 * specs/schemes/auth-capture/scheme_auth_capture_evm.md, "Error Codes", "Typed simulation reverts" and the `policy`
 * appendix's). `@x402/evm` 2.27.0 ships the client only, so the spec is the source; `invalid_network` is the exact
 * group's. svc's facilitator answers them from chain/auth-capture/, its control plane in the 409s of `/payments`.
 */
export const authCaptureEvmReasonRecords = [
  {
    code: 'invalid_auth_capture_evm_payload_format',
    meaning:
      "the payload is neither the EIP-3009 nor the Permit2 shape, lacks `salt`, has `saltNonce` without a bound salt (or lacks it with one), carries part of the charge completion, or v1.0's `feeBps`",
    fix: 'send the payload the official client makes; a server completes a charge with all four of amount, feeAmount, feeReceiver, authorizerSignature',
  },
  {
    code: 'invalid_auth_capture_evm_payload_type',
    meaning: "a lifecycle payload's `type` is not capture, void or refund (or a capture or void of a terminal charge)",
    fix: 'name one of capture, void, refund; a payment of the authorization flow can only be refunded',
  },
  {
    code: 'invalid_auth_capture_evm_void_authorizer_signature',
    meaning:
      '`voidAuthorizerSignature` is on a void or refund, or does not recover to the receiver authorizer over the `Void` digest',
    fix: 'put it on a partial capture only, signed by `extra.receiverAuthorizer` over `Void(paymentInfoHash)`',
  },
  {
    code: 'invalid_auth_capture_evm_void_remainder_full_capture',
    meaning: 'a capture with `voidAuthorizerSignature` captures everything capturable, so nothing is left to void',
    fix: 'leave `voidAuthorizerSignature` out of a full capture',
  },
  {
    code: 'invalid_auth_capture_evm_unsupported_payment_flow',
    meaning: '`extra.paymentFlow` is neither escrow nor authorization, or extra has the removed `autoCapture: true`',
    fix: 'use paymentFlow "escrow" (a hold) or "authorization" (a terminal charge)',
  },
  {
    code: 'invalid_auth_capture_evm_scheme',
    meaning: 'the payment or the requirements are not of the auth-capture scheme',
    fix: 'pay the auth-capture offer of the 402 as it is',
  },
  {
    code: 'invalid_auth_capture_evm_network_mismatch',
    meaning: "the payment's network is not the requirements'",
    fix: "pay on the offer's network",
  },
  {
    code: 'invalid_auth_capture_evm_extra',
    meaning:
      'extra lacks a required field or mistypes one, names an escrow svc does not serve (the v1.0 escrow, or an unknown one), breaks the fee rules, or sets a capture mode the flow or a missing receiver authorizer cannot have',
    fix: "send the 402's extra as it is; svc serves the v1.1 escrows (the installed @x402/evm's and the spec's)",
  },
  {
    code: 'invalid_auth_capture_evm_missing_receiver_authorizer',
    meaning:
      'a charge or a relayed capture, void or refund needs a non-zero `extra.receiverAuthorizer`, and there is none',
    fix: "name the key that signs the seller's consent in `extra.receiverAuthorizer` (svc's 402s do)",
  },
  {
    code: 'invalid_auth_capture_evm_unsupported_operator_type',
    meaning: '`extra.operatorType` is unknown, or `custom` or `policy`, which svc does not implement',
    fix: 'use "delegated" (or leave it out): svc\'s facilitator is the operator',
  },
  {
    code: 'invalid_auth_capture_evm_policy',
    meaning: '`extra.policy` is non-zero where the operator type needs the zero address',
    fix: 'leave `extra.policy` out (or zero) with the delegated operator',
  },
  {
    code: 'invalid_auth_capture_evm_lifecycle_not_relayed',
    meaning:
      'a capture, void or refund was sent for a payment whose extra has no receiver authorizer: nothing relays its lifecycle',
    fix: 'such a hold is captured out of band, or reclaimed by the buyer after the capture deadline; name a receiverAuthorizer in new offers',
  },
  {
    code: 'invalid_auth_capture_evm_operator_type_mismatch',
    meaning: `the operator contract does not expose the collect wrappers its type needs (${notSvc})`,
    fix: 'use the delegated operator type with svc',
  },
  {
    code: 'invalid_auth_capture_evm_operator_not_admitted',
    meaning: "`extra.captureAuthorizer` is not the address svc's facilitator submits from",
    fix: "copy `captureAuthorizer` from the facilitator's /supported (svc's 402s do)",
  },
  {
    code: 'invalid_auth_capture_evm_operator_mismatch',
    meaning: '`paymentInfo.operator` is not `extra.captureAuthorizer` (or the escrow refused the sender)',
    fix: 'send the paymentInfo the payment was collected with, under the same extra',
  },
  {
    code: 'invalid_auth_capture_evm_salt_binding_mismatch',
    meaning: 'the bound salt is not the commitment to the receiver authorizer, the policy and `saltNonce`',
    fix: 'send the `saltNonce` the buyer sent with the payment, under the same extra',
  },
  {
    code: 'invalid_auth_capture_evm_authorizer_signature',
    meaning: 'the authorizer signature is missing, malformed, or not by `extra.receiverAuthorizer`',
    fix: "sign the operation's EIP-712 data with the receiver authorizer's key (svc keeps the seller's)",
  },
  {
    code: 'invalid_auth_capture_evm_unauthenticated_authorizer_request',
    meaning: `the authorizer is delegated to the facilitator and the request is not authenticated (svc advertises no receiver authorizer, so it never answers this code)`,
    fix: 'sign with your own receiver authorizer',
  },
  {
    code: 'invalid_auth_capture_evm_unexpected_payment_state',
    meaning: "the escrow's capturable or refundable amount is not what the signature expected: the payment moved since",
    fix: `read the payment's state again and sign for it; ${lifecycle}`,
  },
  {
    code: 'invalid_auth_capture_evm_refund_funding_unavailable',
    meaning: "the pay-to address's allowance or balance to svc's operator does not cover the refund",
    fix: "approve svc's operator for the amount from the pay-to address (svc does for Sandbox APIs), hold the tokens, then refund",
  },
  {
    code: 'invalid_auth_capture_evm_unsupported_asset_transfer_method',
    meaning: '`extra.assetTransferMethod` is neither eip3009 nor permit2',
    fix: 'use "eip3009" (the default) or "permit2"',
  },
  {
    code: 'invalid_auth_capture_evm_payload_method_mismatch',
    meaning: "the payload's shape is not the one `extra.assetTransferMethod` names",
    fix: 'sign with the transfer method of the offer you pay',
  },
  {
    code: 'invalid_auth_capture_evm_capture_deadline_expired',
    meaning: 'the capture deadline is past (or within 6 s) at the collect, or a capture came at or after it',
    fix: 'ask for a fresh 402; a hold past its capture deadline can only be reclaimed by the buyer (`svc payments reclaim`)',
  },
  {
    code: 'invalid_auth_capture_evm_refund_deadline_expired',
    meaning: 'a refund came at or after the refund deadline',
    fix: 'nothing to do: the payment can no longer be refunded through the escrow',
  },
  {
    code: 'invalid_auth_capture_evm_deadline_ordering',
    meaning:
      'the deadlines are out of order: not now + maxTimeoutSeconds ≤ captureDeadline ≤ refundDeadline, or the signature outlives the capture deadline',
    fix: `${again}; a seller sets captureDeadlineSeconds ≥ max_timeout_seconds + 120`,
  },
  {
    code: 'invalid_auth_capture_evm_authorization_expired',
    meaning: "the authorization's `validBefore` (or Permit2 `deadline`) is past, or within 6 s",
    fix: `ask for a fresh 402 and pay it at once; ${clocks}`,
  },
  {
    code: 'invalid_auth_capture_evm_authorization_not_yet_valid',
    meaning: "the EIP-3009 authorization's `validAfter` is after now",
    fix: `sign with validAfter 0 (the official client does); ${clocks}`,
  },
  {
    code: 'invalid_auth_capture_evm_signature',
    meaning: "the buyer's signature does not verify for its `from` address (ECDSA, ERC-1271 or EIP-6492)",
    fix: "sign the offer with the paying address's key, as the official client does",
  },
  {
    code: 'invalid_auth_capture_evm_erc6492_factory_not_allowed',
    meaning:
      "the payer is a counterfactual smart wallet whose EIP-6492 factory is not on the facilitator's allowlist (svc's is empty)",
    fix: 'deploy the wallet first, then pay',
  },
  {
    code: 'invalid_auth_capture_evm_amount_mismatch',
    meaning:
      "the authorization's value is not the requirements' amount, or a charge, capture or refund amount is 0 or too large",
    fix: `${again}; capture and refund amounts are above 0 and within what the payment holds`,
  },
  {
    code: 'invalid_auth_capture_evm_token_collector_mismatch',
    meaning: "the authorization's `to` (or Permit2 `spender`) is not the escrow's collector for the method",
    fix: `${again}`,
  },
  {
    code: 'invalid_auth_capture_evm_token_mismatch',
    meaning: "Permit2's `permitted.token` is not the requirements' asset",
    fix: `${again}`,
  },
  {
    code: 'invalid_auth_capture_evm_nonce_mismatch',
    meaning: "the authorization's nonce is not the payment's signature nonce recomputed from the requirements and salt",
    fix: `${again}; a scheme-v1.0 client cannot pay a bound (receiverAuthorizer) offer`,
  },
  {
    code: 'invalid_auth_capture_evm_insufficient_balance',
    meaning: 'the payer holds less than the amount',
    fix: 'fund the payer (`svc faucet ADDRESS`), then pay',
  },
  {
    code: 'invalid_auth_capture_evm_simulation_failed',
    meaning: 'simulating the escrow call reverted with an error svc does not map',
    fix: 'read `errorMessage` (the revert), fix what it names, and retry',
  },
  {
    code: 'invalid_auth_capture_evm_payment_already_collected',
    meaning: 'the escrow already collected this payment (its authorization is single-use)',
    fix: 'nothing to do for this payment; pay again with a fresh 402 for another',
  },
  {
    code: 'invalid_auth_capture_evm_token_collection_failed',
    meaning: 'the collector did not move the amount into the escrow',
    fix: "read `errorMessage`; check the payer's balance and (Permit2) its approval",
  },
  {
    code: 'invalid_auth_capture_evm_collector',
    meaning: 'the escrow refused the token collector for this operation',
    fix: "use the set's collector of the method (refunds: its OperatorRefundCollector)",
  },
  {
    code: 'invalid_auth_capture_evm_amount_overflow',
    meaning: 'an amount does not fit the escrow (uint120)',
    fix: 'ask for a smaller amount',
  },
  {
    code: 'invalid_auth_capture_evm_fee_bps',
    meaning: 'a fee bound is above 10000 basis points',
    fix: 'keep minFeeBps and maxFeeBps between 0 and 10000',
  },
  {
    code: 'invalid_auth_capture_evm_fee_bps_range',
    meaning: 'minFeeBps is above maxFeeBps',
    fix: 'set minFeeBps ≤ maxFeeBps',
  },
  {
    code: 'invalid_auth_capture_evm_fee_bps_out_of_range',
    meaning: 'the submitted fee is outside amount·minFeeBps/10000 … amount·maxFeeBps/10000',
    fix: "submit a feeAmount within the payment's fee bounds (0 when both are 0)",
  },
  {
    code: 'invalid_auth_capture_evm_zero_fee_receiver',
    meaning: 'a fee is submitted to the zero address',
    fix: 'name a non-zero feeReceiver, or take no fee',
  },
  {
    code: 'invalid_auth_capture_evm_fee_receiver',
    meaning: "the submitted feeReceiver is not the payment's `feeReceiver`",
    fix: "submit the payment's feeReceiver (extra.feeRecipient)",
  },
  {
    code: 'invalid_auth_capture_evm_insufficient_authorization',
    meaning: 'the capture asks for more than the hold still has',
    fix: `capture at most what is capturable; ${lifecycle}`,
  },
  {
    code: 'invalid_auth_capture_evm_zero_authorization',
    meaning: 'nothing is held any more: the payment was captured, voided or reclaimed already (a second void)',
    fix: 'nothing to do: the hold is gone',
  },
  {
    code: 'invalid_auth_capture_evm_refund_exceeds_capture',
    meaning: 'the refund asks for more than is refundable (captured and not yet refunded)',
    fix: `refund at most what is refundable; ${lifecycle}`,
  },
  {
    code: 'invalid_auth_capture_evm_policy_denied',
    meaning: `a policy contract refused the operation (${notSvc})`,
    fix: 'use the delegated operator type with svc',
  },
  {
    code: 'invalid_auth_capture_evm_verification_failed',
    meaning:
      "the settle's re-verification failed: the payment expired or was consumed since /verify (the reason is in `errorMessage`)",
    fix: 'read `errorMessage`, then ask for a fresh 402 and pay again',
  },
  {
    code: 'invalid_auth_capture_evm_transaction_reverted',
    meaning: 'the escrow transaction was mined and reverted',
    fix: "read `errorMessage` and the transaction; the payment's state did not change",
  },
] as const satisfies readonly Reason[]

/** `@x402/extensions`' sign-in-with-x codes (validate.ts, verify.ts), and svc's one (`invalid_siwx_header`). */
export const siwxReasonRecords = [
  {
    code: 'invalid_siwx_header',
    meaning: 'the `SIGN-IN-WITH-X` header does not decode (base64 JSON of the signed message)',
    fix: "send the header the x402 sign-in-with-x client makes from the 402's challenge",
  },
  {
    code: 'invalid_siwx_domain_mismatch',
    meaning: "the signed message's domain is not the host of the resource",
    fix: "sign the 402's challenge as it is, for the host you call",
  },
  {
    code: 'invalid_siwx_uri_mismatch',
    meaning: "the signed message's URI is not a URL of the resource's origin",
    fix: "sign the 402's challenge as it is",
  },
  {
    code: 'invalid_siwx_issued_at',
    meaning: "the signed message's `issuedAt` is not a date",
    fix: "sign the 402's challenge as it is",
  },
  {
    code: 'invalid_siwx_issued_at_too_old',
    meaning: 'the signed message was issued more than 5 minutes ago',
    fix: 'ask for a fresh 402 and sign its challenge',
  },
  {
    code: 'invalid_siwx_issued_at_in_future',
    meaning: "the signed message's `issuedAt` is ahead of the server's clock",
    fix: "check the buyer's clock; sign the 402's challenge as it is",
  },
  {
    code: 'invalid_siwx_expiration_time',
    meaning: "the signed message's `expirationTime` is not a date",
    fix: "sign the 402's challenge as it is",
  },
  {
    code: 'invalid_siwx_expired',
    meaning: "the signed message's `expirationTime` is past",
    fix: 'ask for a fresh 402 and sign its challenge',
  },
  {
    code: 'invalid_siwx_not_before',
    meaning: "the signed message's `notBefore` is not a date",
    fix: "sign the 402's challenge as it is",
  },
  {
    code: 'invalid_siwx_not_yet_valid',
    meaning: "the signed message's `notBefore` is ahead of the server's clock",
    fix: 'wait until then, or sign a fresh challenge',
  },
  {
    code: 'invalid_siwx_nonce',
    meaning: "the signed message's nonce was used already (svc takes each challenge once)",
    fix: 'ask for a fresh 402 and sign its challenge',
  },
  {
    code: 'invalid_siwx_signature',
    meaning: 'the signature does not verify for the address (on the Sandbox, smart wallets are asked too)',
    fix: 'sign with the key of the address that paid (EIP-191 `personal_sign`)',
  },
  {
    code: 'invalid_siwx_chain_id',
    meaning: "the message's chain id is not a valid `eip155:<id>`",
    fix: "sign for one of the chains the 402's challenge lists",
  },
  {
    code: 'invalid_siwx_unsupported_chain',
    meaning: 'the message names a chain the endpoint does not take',
    fix: "sign for one of the chains the 402's challenge lists",
  },
  {
    code: 'invalid_siwx_malformed_signature',
    meaning: 'the signature or the address cannot be decoded, or the message cannot be built from the fields',
    fix: "send the header the client makes; don't edit its fields",
  },
  {
    code: 'invalid_siwx_verifier_error',
    meaning: "verifying the signature failed (the chain's `verifyMessage` threw)",
    fix: 'check that the chain answers, then retry',
  },
] as const satisfies readonly Reason[]

/** The reasons svc's gateway and facilitator answer of their own, beyond any scheme's. */
export const gatewayReasonRecords = [
  {
    code: 'chain_unavailable',
    meaning:
      'the chain could not judge the payment now: it is restarting, or its RPC does not answer (HTTP 503, `Retry-After`)',
    fix: 'retry in a moment; if it lasts, check that svc runs (`svc up`)',
  },
  {
    code: 'unexpected_settle_error',
    meaning: 'svc could not journal a batch-settlement channel action, so it did not send it',
    fix: "read `errorMessage`: svc's data dir or database refused the write; fix it and retry",
  },
  {
    code: 'extension_echo_mismatch',
    meaning: "the payment's extensions do not repeat the ones the 402 offered (x402's resource server checks the echo)",
    fix: "send back the 402's extensions as they were offered (the x402 client does)",
  },
] as const satisfies readonly Reason[]

/** A group of reasons as docs/reference/errors.md shows it. */
export type ReasonGroup = { id: string; title: string; about: string; reasons: readonly Reason[] }

export const reasonGroups: readonly ReasonGroup[] = [
  {
    id: 'exact',
    title: "exact (EIP-3009 and Permit2), the sponsoring extensions, and svc's facilitator",
    about:
      "The exact EVM scheme's reasons (`@x402/evm`), which the upto scheme answers too for Permit2, approvals and assets, then svc's facilitator's own. These are the codes `svc fault add verify|settle --reason` takes (`svc fault reasons`).",
    reasons: exactEvmReasonRecords,
  },
  {
    id: 'upto',
    title: 'upto',
    about: "The upto EVM scheme's own reasons; it answers the Permit2 and approval reasons above too.",
    reasons: uptoEvmReasonRecords,
  },
  {
    id: 'batch-settlement',
    title: 'batch-settlement (payment channels)',
    about:
      "The batch-settlement EVM scheme's reasons: the facilitator's (deposits, vouchers, claims, settles, refunds) and the seller's (a voucher against the seller's record of the channel). In a 402 of a channel payment, `error` is the reason code itself.",
    reasons: batchSettlementEvmReasonRecords,
  },
  {
    id: 'auth-capture',
    title: 'auth-capture (escrow payments)',
    about:
      "The auth-capture EVM scheme's reasons (x402's escrow payments: a hold, then capture, void or refund; or a terminal charge), from x402's spec: the facilitator's verify and settle reasons, the escrow's typed reverts, and those of operator types svc does not implement (`custom`, `policy`). `invalid_network` is the exact group's. The control plane's `/payments` refusals (409) name these codes too.",
    reasons: authCaptureEvmReasonRecords,
  },
  {
    id: 'sign-in-with-x',
    title: 'sign-in-with-x',
    about:
      "The reasons a `SIGN-IN-WITH-X` header is refused, in the 402's `error` as `sign-in-with-x refused: <reason> (<message>)`.",
    reasons: siwxReasonRecords,
  },
  {
    id: 'svc',
    title: "svc's gateway and facilitator",
    about: 'Reasons of svc itself, whatever the scheme.',
    reasons: gatewayReasonRecords,
  },
]

const byCode: ReadonlyMap<string, Reason> = new Map(
  reasonGroups.flatMap((group) => group.reasons.map((reason) => [reason.code, reason] as const)),
)

/** The record of any reason code svc answers, or undefined. */
export const reasonOf = (code: string): Reason | undefined => byCode.get(code)
