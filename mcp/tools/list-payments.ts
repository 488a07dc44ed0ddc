import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { z } from 'zod'
import { apiId } from '../schemas.js'
import { addTool, plural, type McpContext } from '../tool.js'

const states = ['authorized', 'captured', 'charged', 'voided', 'refunded', 'reclaimed'] as const

/** What the payment tools answer of a payment: its id, request, state and amounts (the rest passes through). */
export const escrowPaymentOutput = z.looseObject({
  id: z.string(),
  api_id: z.string(),
  method: z.string(),
  path: z.string(),
  payer: z.string(),
  state: z.enum(states),
  authorized: z.string(),
  captured: z.string(),
  voided: z.string(),
  refunded: z.string(),
  reclaimed: z.string(),
  capturable: z.string(),
  refundable: z.string(),
  capture_deadline: z.number(),
  refund_deadline: z.number(),
})

/** `svc_list_payments`: GET /payments. */
export function registerListPayments(server: McpServer, ctx: McpContext) {
  addTool(
    server,
    {
      name: 'svc_list_payments',
      title: 'Escrow payments',
      description:
        "Escrow payments (x402 auth-capture) buyers made to the seller's APIs in the key's environment, newest first: what each hold authorized, what was captured, voided, refunded or reclaimed, what is still capturable and refundable (atomic units), the capture and refund deadlines (unix seconds). Capture, void or refund one with svc_capture_payment, svc_void_payment, svc_refund_payment.",
      needs: 'the scope settlements:read',
      input: z.strictObject({
        api_id: apiId.optional().describe('Only this API'),
        state: z.enum(states).optional().describe('Only payments in this state (authorized: something still held)'),
        limit: z.int().min(1).max(1000).optional().describe('How many, 1-1000 (default 50)'),
      }),
      output: z.strictObject({ payments: z.array(escrowPaymentOutput) }),
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async (query) => {
      const payments = await ctx.client.payments.list(query)
      return { summary: `${plural(payments.length, 'escrow payment')}.`, data: { payments } }
    },
  )
}
