/**
 * The reason codes a facilitator of the exact EVM scheme answers, for `svc fault add verify|settle --reason`.
 *
 * `@x402/evm` defines them in `src/exact/facilitator/errors.ts` but does not export them from any entry point, so they
 * are listed here; test/core/fault-reasons.test.ts reads the installed package and fails when it has a code this
 * list lacks (or the other way round). The last ones are svc's facilitator's own: five it answers before the scheme is
 * asked (chain/facilitator/facilitator.ts, chain/facilitator/client.ts), and its checks of a sponsored approval.
 */
export const exactEvmReasons = [
  'asset_not_deployed_contract',
  'invalid_exact_evm_scheme',
  'invalid_exact_evm_network_mismatch',
  'invalid_exact_evm_missing_eip712_domain',
  'invalid_exact_evm_recipient_mismatch',
  'invalid_exact_evm_signature',
  'invalid_exact_evm_payload_authorization_valid_before',
  'invalid_exact_evm_payload_authorization_valid_after',
  'invalid_exact_evm_authorization_value',
  'invalid_exact_evm_payload_authorization_value_mismatch',
  'invalid_exact_evm_transaction_failed',
  'invalid_exact_evm_transfer_event_mismatch',
  'invalid_exact_evm_token_name_mismatch',
  'invalid_exact_evm_token_version_mismatch',
  'invalid_exact_evm_eip3009_not_supported',
  'invalid_exact_evm_nonce_already_used',
  'invalid_exact_evm_insufficient_balance',
  'invalid_exact_evm_transaction_simulation_failed',
  'invalid_permit2_spender',
  'invalid_permit2_recipient_mismatch',
  'permit2_deadline_expired',
  'permit2_not_yet_valid',
  'permit2_amount_mismatch',
  'permit2_token_mismatch',
  'invalid_permit2_signature',
  'permit2_allowance_required',
  'permit2_simulation_failed',
  'permit2_insufficient_balance',
  'permit2_proxy_not_deployed',
  'permit2_invalid_amount',
  'permit2_invalid_destination',
  'permit2_invalid_owner',
  'permit2_payment_too_early',
  'permit2_invalid_nonce',
  'permit2_2612_amount_mismatch',
  'invalid_erc20_approval_extension_format',
  'erc20_approval_from_mismatch',
  'erc20_approval_asset_mismatch',
  'erc20_approval_spender_not_permit2',
  'erc20_approval_tx_wrong_target',
  'erc20_approval_tx_wrong_selector',
  'erc20_approval_tx_wrong_spender',
  'erc20_approval_tx_invalid_calldata',
  'erc20_approval_tx_signer_mismatch',
  'erc20_approval_tx_invalid_signature',
  'erc20_approval_tx_parse_failed',
  'erc20_approval_tx_failed',
  'erc20_approval_broadcast_failed',
  'invalid_eip2612_extension_format',
  'eip2612_from_mismatch',
  'eip2612_asset_mismatch',
  'eip2612_spender_not_permit2',
  'eip2612_deadline_expired',
  'invalid_exact_evm_failed_to_parse_signature',
  'unsupported_payload_type',
  'invalid_transaction_state',
  'eip6492_factory_not_allowed',
  'smart_wallet_deployment_failed',
  'settlement_pending',
  // svc's facilitator, before the scheme is asked.
  'invalid_payload',
  'invalid_payment_requirements',
  'invalid_network',
  'unsupported_scheme',
  'invalid_x402_version',
  // svc's facilitator, after the scheme: the checks of a sponsored ERC-20 approval x402 leaves out
  // (chain/facilitator/erc20-approval-checks.ts).
  'erc20_approval_tx_wrong_chain',
  'erc20_approval_tx_has_value',
  'erc20_approval_tx_gas_too_high',
  'erc20_approval_tx_fee_too_high',
  'erc20_approval_tx_fee_too_low',
  'erc20_approval_amount_too_low',
  'erc20_approval_amount_mismatch',
  'erc20_approval_tx_wrong_nonce',
] as const

export type ExactEvmReason = (typeof exactEvmReasons)[number]

const known: ReadonlySet<string> = new Set(exactEvmReasons)

/** Whether `code` is a reason the exact EVM scheme's facilitator answers. */
export const isExactEvmReason = (code: string): code is ExactEvmReason => known.has(code)
