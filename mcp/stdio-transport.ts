import type { Readable, Writable } from 'node:stream'
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js'
import {
  CancelledNotificationSchema,
  isJSONRPCErrorResponse,
  isJSONRPCNotification,
  isJSONRPCRequest,
  isJSONRPCResultResponse,
  type JSONRPCMessage,
  type RequestId,
} from '@modelcontextprotocol/sdk/types.js'

/**
 * The SDK's stdio transport, keeping count of the requests it has received and not answered yet, so that the server
 * can answer them before it closes (a client that sends its calls and closes stdin still gets every answer).
 * A request the client cancels (`notifications/cancelled`) gets no answer and is no longer waited for.
 */
export class AnsweringStdioTransport extends StdioServerTransport {
  private readonly unanswered = new Set<RequestId>()
  private readonly waiting: (() => void)[] = []

  constructor(stdin?: Readable, stdout?: Writable) {
    super(stdin, stdout)
    // The server's protocol keeps a handler set before it connects and calls it first for every message.
    this.onmessage = (message: JSONRPCMessage) => this.noteReceived(message)
  }

  override async send(message: JSONRPCMessage): Promise<void> {
    await super.send(message)
    if ((isJSONRPCResultResponse(message) || isJSONRPCErrorResponse(message)) && message.id !== undefined)
      this.settle(message.id)
  }

  /**
   * Resolves once every request received so far has been answered (or cancelled), or after `timeoutMs` at the
   * latest: a call that hangs must not keep the server alive forever.
   */
  answered(options: { /** @defaultValue 30_000 */ timeoutMs?: number } = {}): Promise<void> {
    const { timeoutMs = 30_000 } = options
    if (this.unanswered.size === 0) return Promise.resolve()
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, timeoutMs)
      this.waiting.push(() => {
        clearTimeout(timer)
        resolve()
      })
    })
  }

  private noteReceived(message: JSONRPCMessage): void {
    if (isJSONRPCRequest(message)) this.unanswered.add(message.id)
    else if (isJSONRPCNotification(message)) {
      const cancelled = CancelledNotificationSchema.safeParse(message)
      if (cancelled.success && cancelled.data.params.requestId !== undefined)
        this.settle(cancelled.data.params.requestId)
    }
  }

  private settle(id: RequestId): void {
    this.unanswered.delete(id)
    if (this.unanswered.size > 0) return
    for (const resolve of this.waiting.splice(0)) resolve()
  }
}
