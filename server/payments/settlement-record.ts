import type { PaymentRequirements, SettleResponse } from '@x402/core/types'
import type { ApiRow, EndpointRow, SettlementRow } from '../db/tables.js'
import { newId, nowIso } from '../ids.js'
import type { BuilderCode } from './decode.js'
import type { GatewayStore } from '../db/gateway-store.js'

export type SettledPayment = {
  api: ApiRow
  endpoint: EndpointRow
  /** An ephemeral endpoint is deleted with the record, in one transaction; the record then names no endpoint. */
  ephemeral: boolean
  requirements: PaymentRequirements
  settled: SettleResponse
  payer: string
  method: string
  path: string
  /** The Sandbox chain's epoch ('' for production). */
  chainEpoch: string
  /** The payment's builder-code attribution (decode.ts `builderCodeOf`), if it carried one. */
  builderCode?: BuilderCode | undefined
}

/**
 * Records a settled payment in `settlements` (the seller's books) and names it in its journal row; resolves with the
 * settlement's id. Undefined when the transaction is already recorded: the facilitator settles a payload once and
 * answers a repeat with the first transaction, so a second record of it is a replay of the same payment.
 */
export async function recordSettlement(
  store: GatewayStore,
  payment: SettledPayment,
  journalId: string,
  row: SettlementRow = settlementRow(payment),
): Promise<string | undefined> {
  const { endpoint, ephemeral } = payment
  return (await store.recordSettlement(row, ephemeral ? endpoint.id : undefined, journalId)) ? row.id : undefined
}

/** The `settlements` row of a settled payment (its id known before it is written). */
export function settlementRow(payment: SettledPayment): SettlementRow {
  const { api, endpoint, ephemeral, requirements, settled } = payment
  return {
    id: newId('stl'),
    api_id: api.id,
    endpoint_id: ephemeral ? null : endpoint.id,
    user_id: api.user_id,
    environment: api.environment,
    network: settled.network || requirements.network,
    asset: requirements.asset,
    amount: settled.amount || requirements.amount,
    payer: payment.payer,
    pay_to: requirements.payTo,
    transaction: settled.transaction,
    method: payment.method,
    path: payment.path,
    created_at: nowIso(),
    chain_epoch: payment.chainEpoch,
    delivered: 1,
    builder_code: payment.builderCode === undefined ? null : JSON.stringify(payment.builderCode),
  }
}
