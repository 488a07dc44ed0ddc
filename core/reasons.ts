/**
 * Every reason code svc answers beyond the exact and upto schemes' (core/fault-reasons.ts): the batch-settlement
 * scheme's, sign-in-with-x's and svc's own, each with what it means and what to do, grouped as
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
