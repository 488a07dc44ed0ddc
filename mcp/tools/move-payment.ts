import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { z } from 'zod'
import { addTool, type McpContext } from '../tool.js'
import { escrowPaymentOutput } from './list-payments.js'

const paymentId = z.string().min(1).max(200).describe('The payment (esc_…, from svc_list_payments)')
const atomic = z.string().regex(/^[1-9][0-9]*$/, 'a positive integer of atomic units')
const output = z.strictObject({
  payment: escrowPaymentOutput,
  transaction: z.looseObject({ kind: z.string(), amount: z.string(), transaction: z.string() }),
})
const annotations = { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true }
const needs = 'the scope payments:write'
const said = (what: string, moved: z.input<typeof output>) =>
  `${what} ${moved.transaction.amount} of ${moved.payment.id} (tx ${moved.transaction.transaction}); it is now ${moved.payment.state}: captured ${moved.payment.captured}, capturable ${moved.payment.capturable}, refunded ${moved.payment.refunded}.`

/** `svc_capture_payment`: POST /payments/{paymentId}/capture. */
export function registerCapturePayment(server: McpServer, ctx: McpContext) {
  addTool(
    server,
    {
      name: 'svc_capture_payment',
      title: 'Capture an escrow payment',
      description:
        "Captures an escrow payment's hold (x402 auth-capture) to the seller: all that is still capturable, or `amount` atomic units (the rest stays held, to capture later or void). Refused before anything is sent when the amount is above what is held, at the capture deadline, or when nothing is held.",
      needs,
      input: z.strictObject({
        payment_id: paymentId,
        amount: atomic.optional().describe('Atomic units to capture; default everything capturable'),
      }),
      output,
      annotations,
    },
    async ({ payment_id, amount }) => {
      const moved = await ctx.client.payments.capture(payment_id, amount === undefined ? {} : { amount })
      return { summary: said('Captured', moved), data: moved }
    },
  )
}

/** `svc_void_payment`: POST /payments/{paymentId}/void. */
export function registerVoidPayment(server: McpServer, ctx: McpContext) {
  addTool(
    server,
    {
      name: 'svc_void_payment',
      title: 'Void an escrow payment',
      description:
        'Gives back to the buyer what an escrow payment (x402 auth-capture) still holds. Refused when nothing is held (a second void) or the payment was a terminal charge.',
      needs,
      input: z.strictObject({ payment_id: paymentId }),
      output,
      annotations,
    },
    async ({ payment_id }) => {
      const moved = await ctx.client.payments.void(payment_id)
      return { summary: said('Voided', moved), data: moved }
    },
  )
}

/** `svc_refund_payment`: POST /payments/{paymentId}/refund. */
export function registerRefundPayment(server: McpServer, ctx: McpContext) {
  addTool(
    server,
    {
      name: 'svc_refund_payment',
      title: 'Refund an escrow payment',
      description:
        "Refunds `amount` atomic units of what an escrow payment (x402 auth-capture) captured, to the buyer, funded by the API's pay-to address. Refused at the refund deadline or above what is refundable.",
      needs,
      input: z.strictObject({ payment_id: paymentId, amount: atomic.describe('Atomic units to refund') }),
      output,
      annotations,
    },
    async ({ payment_id, amount }) => {
      const moved = await ctx.client.payments.refund(payment_id, { amount })
      return { summary: said('Refunded', moved), data: moved }
    },
  )
}
