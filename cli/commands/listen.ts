import { setTimeout as sleep } from 'node:timers/promises'
import type { Command } from 'commander'
import { SvcApiError, SvcError, UsageError } from '../../core/errors.js'
import { formatUsdc, usdcAddress } from '../../core/sandbox-usdc.js'
import { isSandboxEvent } from '../../sdk/client.js'
import type { PaymentEvent, SandboxEvent, StreamEvent } from '../../sdk/types.js'
import { action, type Call, type CliContext } from '../context.js'
import { createEventForwarder } from '../event-forwarder.js'
import { openEventStream } from '../event-stream.js'
import { listenSecret } from '../listen-secret.js'
import { checkSessionTarget, refusedMessage } from '../session-target.js'
import { requestEnvironment } from '../settings.js'
import { firstSignal } from '../signals.js'

type ListenFlags = { api?: string; forwardTo?: string; secret?: string; newSecret?: boolean }

/** Waits between reconnections: doubling from the first, at most the last. */
const reconnectMs = { first: 500, most: 10_000 }

const short = (hex: string) => (hex.length > 14 ? `${hex.slice(0, 8)}…${hex.slice(-4)}` : hex)

/** A whole-Sandbox event as a line: time, type, who did it, and what. */
function sandboxEventLine(event: SandboxEvent): string {
  const what =
    event.snapshot_id !== null
      ? `to snapshot ${event.snapshot_id}`
      : event.seconds !== null
        ? `by ${event.seconds} s`
        : ''
  return [event.created_at.slice(11, 23), event.type.padEnd(16), `by ${event.actor}`, what].filter(Boolean).join('  ')
}

/** One event as a line: time, type, API and request, amount, and what became of it. */
export function eventLine(event: StreamEvent): string {
  if (isSandboxEvent(event)) return sandboxEventLine(event)
  return paymentEventLine(event)
}

/** An amount of the event's asset: USDC for the Sandbox USDC, else atomic units. */
const amountOf = (event: PaymentEvent, atomic: string) =>
  event.asset?.toLowerCase() === usdcAddress.toLowerCase() ? `${formatUsdc(atomic)} USDC` : `${atomic} units`

/** What an escrow step did (payment.authorized … payment.reclaimed), after what it moved. */
function escrowDetail(event: PaymentEvent, escrow: NonNullable<PaymentEvent['escrow']>): string {
  const tx = `tx ${short(event.transaction ?? '')}`
  const total = (what: string, atomic: string) => `${what} ${formatUsdc(atomic)} in all`
  const did =
    event.type === 'payment.authorized'
      ? `held from ${short(event.payer ?? '')}`
      : event.type === 'payment.captured'
        ? total('captured', escrow.captured)
        : event.type === 'payment.voided'
          ? 'released to the buyer'
          : event.type === 'payment.refunded'
            ? total('refunded', escrow.refunded)
            : 'reclaimed by the buyer'
  return `${did} (${escrow.id}, ${escrow.state}) ${tx}`
}

function paymentEventLine(event: PaymentEvent): string {
  const escrow = event.escrow ?? null
  const moved = escrow ? escrow.moved : event.amount
  const amount = moved === null ? '' : amountOf(event, moved)
  const detail = escrow
    ? escrowDetail(event, escrow)
    : event.type === 'payment.settled'
      ? `from ${short(event.payer ?? '')} tx ${short(event.transaction ?? '')}`
      : event.type === 'payment.failed'
        ? `${event.status} ${event.reason ?? event.error ?? ''}`
        : event.type === 'upstream.failed'
          ? event.charged
            ? `${event.status}, charged upfront (tx ${short(event.transaction ?? '')}), not delivered: ${event.error ?? ''}`
            : `${event.status}, not charged: ${event.error ?? ''}`
          : event.type === 'payment.verified'
            ? `from ${short(event.payer ?? '')}`
            : event.type.startsWith('channel.')
              ? `channel ${short(event.channel_id ?? '')} tx ${short(event.transaction ?? '')}`
              : ''
  return [
    event.created_at.slice(11, 23),
    event.type.padEnd(16),
    `${event.api_slug} ${event.method} ${event.path}`,
    amount,
    detail,
  ]
    .filter(Boolean)
    .join('  ')
}

/** The credential headers of the stream (as the SDK sends them): the API key, else the JWT and its environment. */
function credentialHeaders(call: Call<object>): Record<string, string> {
  const settings = call.settings()
  if (settings.apiKey) return { 'x-api-key': settings.apiKey }
  if (settings.jwt)
    return { authorization: `Bearer ${settings.jwt}`, 'x-svc-environment': requestEnvironment(settings) }
  throw new UsageError('not logged in: run `svc login` (or `svc signup`), or set SVC_API_KEY or SVC_JWT')
}

function checkForwardUrl(value: string): string {
  let url: URL
  try {
    url = new URL(value)
  } catch {
    throw new UsageError(`--forward-to is not a URL: "${value}"`)
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new UsageError(`--forward-to must be an http(s) URL: "${value}"`)
  return url.href
}

/** `svc listen`: the live payment events of the caller's APIs, printed and optionally forwarded as signed webhooks. */
export function registerListen(program: Command, ctx: CliContext) {
  program
    .command('listen')
    .description(
      "print payment events as they happen (402 offered, verified, settled, failed, upstream failed) and the Sandbox's changes (sandbox.*); Ctrl-C stops",
    )
    .option('--json', 'one JSON object a line, one per event')
    .option('--api <slug>', 'only this API')
    .option(
      '--forward-to <url>',
      'POST each event as JSON to this URL, signed (svc-signature header), retried with backoff',
    )
    .option(
      '--secret <secret>',
      'the signing secret of --forward-to for this run (default: the one svc keeps in its config dir, printed at start)',
    )
    .option('--new-secret', 'replace the kept signing secret with a new one (your receiver then needs the new one)')
    .addHelpText(
      'after',
      '\nWith --json, each event is one JSON line. --forward-to signs each POST with\n' +
        '  svc-signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>" under the secret>\n' +
        "and sends svc-event-id and svc-event-type; verify it with `verifyEventSignature(secret, header, body)` from 'svc'.",
    )
    .action(
      action<ListenFlags>(ctx, async (call) => {
        const { api, forwardTo, secret: givenSecret, newSecret } = call.options
        const url = forwardTo === undefined ? undefined : checkForwardUrl(forwardTo)
        if (givenSecret !== undefined && newSecret) throw new UsageError('give --secret or --new-secret, not both')
        if (newSecret && url === undefined) throw new UsageError('--new-secret applies to --forward-to')
        const headers = credentialHeaders(call)
        const settings = call.settings()
        // The saved login goes only to the svc it was made on; a refusal names the URL and the credential.
        const credential = settings.apiKey ? settings.apiKeyFrom : settings.jwtFrom
        if (credential === 'the saved login') await checkSessionTarget(settings)
        const client = call.client()
        // The slug is looked up (an unknown one is an error); a key without apis:read filters by the events' slug instead.
        const apis =
          api === undefined
            ? undefined
            : await client.apis.list().catch((error: unknown) => {
                if (error instanceof SvcApiError && error.status === 403) return undefined
                throw error
              })
        const apiId = apis?.find((candidate) => candidate.slug === api)?.id
        if (apis && apiId === undefined)
          throw new SvcError(`no API with the slug "${api}" in ${requestEnvironment(settings)}`)

        const note = (line: string) => ctx.io.stderr.write(`${line}\n`)
        // The same secret run after run, so that the receiver's copy stays right; --new-secret rotates it.
        const kept =
          url === undefined || givenSecret !== undefined ? undefined : listenSecret(ctx.env, newSecret === true)
        const secret = givenSecret ?? kept?.secret ?? ''
        const forwarder =
          url === undefined
            ? undefined
            : createEventForwarder({
                url,
                secret,
                onResult: (event, result) => {
                  if (result.dropped) note(`svc: dropped ${event.id}: more than 1000 events wait for ${url}`)
                  else if (!result.ok)
                    note(
                      `svc: could not deliver ${event.id} to ${url} after ${result.attempts} attempts (${result.status || result.error})`,
                    )
                  else if (!call.out.isJson) note(`  → ${event.id} delivered to ${url} (${result.status})`)
                },
              })
        if (url) note(`forwarding to ${url}; the signing secret is ${secret}`)
        if (kept)
          note(`  ${kept.created ? 'new, saved' : 'kept'} in ${kept.path}; \`svc listen --new-secret\` replaces it`)

        const stop = new AbortController()
        const done = new AbortController()
        void firstSignal(note, { until: done.signal }).then(() => stop.abort())
        let lastEventId: string | undefined
        let wait = reconnectMs.first
        let connected = false
        try {
          while (!stop.signal.aborted) {
            let events: AsyncIterable<StreamEvent>
            try {
              events = await openEventStream({
                baseUrl: settings.baseUrl,
                headers,
                apiId,
                lastEventId,
                signal: stop.signal,
              })
            } catch (error) {
              if (stop.signal.aborted) break
              if (error instanceof SvcApiError && error.status === 401)
                throw new SvcError(refusedMessage(error.message, { url: settings.baseUrl, credential }), {
                  status: 401,
                  cause: error,
                })
              // Refused (credential, scope, API): say so and stop. Unreachable after a first connection: wait and retry.
              if (!(error instanceof SvcApiError) || error.status !== 0 || !connected) throw error
              await sleep(wait, undefined, { signal: stop.signal }).catch(() => {})
              wait = Math.min(wait * 2, reconnectMs.most)
              continue
            }
            note(
              `${connected ? 'reconnected: listening' : 'listening'} for payment events of ${api ?? 'every API'} (${requestEnvironment(settings)}) on ${settings.baseUrl}; Ctrl-C stops`,
            )
            connected = true
            wait = reconnectMs.first
            for await (const event of events) {
              lastEventId = event.id
              const sandbox = isSandboxEvent(event)
              if (!sandbox && api !== undefined && event.api_slug !== api) continue
              call.io.stdout.write(`${call.out.isJson ? JSON.stringify(event) : eventLine(event)}\n`)
              // Whatever the stream shows this credential is forwarded: its payment events, and the whole-Sandbox
              // changes (revert, time travel, chain restart) of its environment, with who made them.
              forwarder?.forward(event)
            }
            if (stop.signal.aborted) break
            note('svc: the event stream ended; reconnecting')
            await sleep(reconnectMs.first, undefined, { signal: stop.signal }).catch(() => {})
          }
        } finally {
          done.abort()
          forwarder?.stop()
        }
      }),
    )
}
