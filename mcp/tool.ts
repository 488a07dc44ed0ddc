import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import type { CallToolResult, ToolAnnotations } from '@modelcontextprotocol/sdk/types.js'
import type { z } from 'zod'
import { SvcApiError, toSvcError, type SvcError } from '../core/errors.js'
import type { SvcClient } from '../sdk/client.js'
import type { Environment } from '../sdk/types.js'

/** What every tool gets: the control-plane client (an API key) and the key's environment. */
export type McpContext = {
  client: SvcClient
  /** `development` for a svc_sandbox_ key, `production` for a svc_live_ key (asked once from GET /auth/me when unknown). */
  environment(): Promise<Environment>
}

/** What a tool handler answers: a one-paragraph summary for the model and the JSON the control plane gave. */
export type ToolAnswer<O extends z.ZodType> = { summary: string; data: z.input<O> }

export type ToolSpec<I extends z.ZodType, O extends z.ZodType> = {
  /** `svc_…` */
  name: `svc_${string}`
  title: string
  /** What the tool does, for an agent; the needed scopes are appended. */
  description: string
  /** What the API key needs, e.g. `apis:write and a verified email`. */
  needs: string
  input: I
  output: O
  annotations?: ToolAnnotations
}

/** A human hint for a control-plane refusal of the key, added after the server's own message. */
function hint(tool: { name: string; needs: string }, error: SvcError): string | undefined {
  if (!(error instanceof SvcApiError)) return undefined
  if (error.code === 'forbidden') return `${tool.name} needs an API key with ${tool.needs}`
  if (error.code === 'unauthorized')
    return 'check SVC_API_KEY and SVC_BASE_URL: a svc_sandbox_ key goes with the Sandbox control plane, a svc_live_ key with the production one'
  return undefined
}

/**
 * The text of a failed tool call: the message, the HTTP status of a control-plane answer, and a hint. A usage mistake
 * (`UsageError`) or a refusal reads as it is; anything else is svc's own failure, and says so.
 */
function describeToolError(tool: { name: string; needs: string }, error: SvcError): string {
  const status = error instanceof SvcApiError && error.status ? ` (HTTP ${error.status})` : ''
  const extra = hint(tool, error)
  const internal = error.code === 'internal_error' ? `internal error in ${tool.name}: ` : ''
  return `${internal}${error.message}${status}${extra ? `: ${extra}` : ''}`
}

/**
 * Registers one tool. The handler throws to fail: the SDK turns the error into an `isError` result whose text is
 * the message, so a control-plane refusal (403 "insufficient scope") reaches the model as the server worded it.
 */
export function addTool<I extends z.ZodType, O extends z.ZodType>(
  server: McpServer,
  spec: ToolSpec<I, O>,
  handler: (input: z.output<I>) => Promise<ToolAnswer<O>>,
): void {
  const callback = async (input: z.output<I>): Promise<CallToolResult> => {
    let answer: ToolAnswer<O>
    try {
      answer = await handler(input)
    } catch (error) {
      throw new Error(describeToolError(spec, toSvcError(error)), { cause: error })
    }
    const structuredContent = answer.data as Record<string, unknown>
    return {
      content: [
        { type: 'text', text: answer.summary },
        { type: 'text', text: JSON.stringify(structuredContent, null, 2) },
      ],
      structuredContent,
    }
  }
  server.registerTool(
    spec.name,
    {
      title: spec.title,
      description: `${spec.description}\n\nNeeds: an API key with ${spec.needs}.`,
      inputSchema: spec.input,
      outputSchema: spec.output,
      ...(spec.annotations ? { annotations: spec.annotations } : {}),
    },
    // The SDK's callback type is computed from the schema; for a generic schema it cannot be, so it is asserted here.
    callback as never,
  )
}

/** "1 endpoint", "3 endpoints" */
export const plural = (count: number, noun: string) => `${count} ${noun}${count === 1 ? '' : 's'}`
