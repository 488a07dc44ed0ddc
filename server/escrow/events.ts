/*
 * The live events of an escrow payment's steps: the escrow part every payment.authorized … payment.reclaimed event
 * carries, and the whole event of a step no buyer's request is behind (the seller's capture, void or refund through
 * the control plane, the buyer's reclaim the sweep records).
 */
import type { EscrowPaymentRow } from '../db/index.js'
import type { PaymentEvent, PaymentEventEscrow, PaymentEventType } from '../payment-events.js'

/** The escrow part of a payment.* event after a step: the payment after it, and what the step moved. */
export const escrowOf = (payment: EscrowPaymentRow, moved: string): PaymentEventEscrow => ({
  id: payment.id,
  payment_info_hash: payment.payment_info_hash,
  state: payment.state,
  moved,
  captured: payment.captured,
  refunded: payment.refunded,
})

/** A step of a recorded escrow payment, as its event tells it. */
export type EscrowEventStep = {
  type: Extract<PaymentEventType, 'payment.captured' | 'payment.voided' | 'payment.refunded' | 'payment.reclaimed'>
  /** The slug of the payment's API. */
  api_slug: string
  created_at: string
  /** What the step moved (atomic units of the payment's asset). */
  moved: string
  /** The event's `amount` when not what the step moved (a seller's step tells what was authorized). */
  amount?: string | undefined
  transaction: string
}

/**
 * The event of a step no buyer's request is behind: the paid request's method and path, status 200, and `charged`
 * when anything of the payment is captured.
 */
export function escrowEvent(payment: EscrowPaymentRow, step: EscrowEventStep): Omit<PaymentEvent, 'id'> {
  return {
    type: step.type,
    created_at: step.created_at,
    environment: payment.environment,
    api_id: payment.api_id,
    api_slug: step.api_slug,
    endpoint_id: payment.endpoint_id,
    method: payment.method,
    path: payment.path,
    amount: step.amount ?? step.moved,
    asset: payment.asset,
    network: payment.network,
    pay_to: payment.pay_to,
    payer: payment.payer,
    transaction: step.transaction,
    settlement_id: payment.settlement_id,
    reason: null,
    error: null,
    status: 200,
    charged: BigInt(payment.captured) > 0n,
    builder_code: null,
    channel_id: null,
    escrow: escrowOf(payment, step.moved),
  }
}
