import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { z } from 'zod'
import { describeFault, faultOutput, sandboxNeeds } from '../sandbox-schemas.js'
import { addTool, type McpContext } from '../tool.js'

/** The fields of POST /dev/faults (FaultCreate); which ones fit which kind is the route's to say. */
const input = z.strictObject({
  kind: z
    .enum(['verify', 'settle', 'upstream'])
    .describe("Where it strikes: the facilitator's verify or settle, or the upstream behind the gateway"),
  // A string, not an enum of core/fault-reasons.ts: the route checks it and answers what is wrong in its own words.
  reason: z
    .string()
    .min(1)
    .max(200)
    .optional()
    .describe(
      'verify (required), settle: the x402 reason of the exact scheme the facilitator answers, e.g. "invalid_exact_evm_signature" (svc_list_faults lists them)',
    ),
  delay_ms: z
    .int()
    .min(1)
    .max(600_000)
    .optional()
    .describe('settle: settle this much later; upstream: the upstream answers this much later'),
  status: z.int().min(400).max(599).optional().describe('upstream: the HTTP error status the upstream answers'),
  drop: z.literal(true).optional().describe('upstream: the upstream drops the connection (leave it out otherwise)'),
  api: z.string().min(1).max(63).optional().describe('The slug of the one Sandbox API it strikes (default: every API)'),
  times: z
    .int()
    .min(1)
    .max(1_000_000)
    .optional()
    .describe('Strike the next N payments, then go (default: until cleared)'),
})

/** `svc_add_fault`: POST /dev/faults. */
export function registerAddFault(server: McpServer, ctx: McpContext) {
  addTool(
    server,
    {
      name: 'svc_add_fault',
      title: 'Inject a fault',
      description:
        'Injects a fault into the local Sandbox to test how a buyer or seller copes. verify with a reason: the facilitator refuses the next payments with that x402 reason. settle with a reason and/or delay_ms: the settlement waits, then is refused (with a delay only, it then settles). upstream with exactly one of status, delay_ms or drop: the upstream fails and nothing is settled. api limits it to one Sandbox API; times makes it go after N strikes. Clear it with svc_clear_faults. Sandbox (local svc) only.',
      needs: sandboxNeeds,
      input,
      output: faultOutput,
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    },
    async (args) => {
      const fault = await ctx.client.faults.add(args)
      return { summary: `Injected ${describeFault(fault)}.`, data: fault }
    },
  )
}
