import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Command } from 'commander'
import { localFetch } from '../../sdk/local-fetch.js'
import { errorCode, SvcError, toSvcError, UsageError } from '../../core/errors.js'
import { formatUsdc, sandboxNetwork, usdcAddress } from '../../core/sandbox-usdc.js'
import { describeAccept, parseDecimalAmount } from '../amounts.js'
import { action, addCommand, type CliContext } from '../context.js'
import { parseHeaders, readTextFile } from '../inputs.js'
import { signingBySvcClock } from '../../sdk/svc-clock-signing.js'
import { askGatewaySvc } from '../svc-of-gateway.js'
import { buyerChannelsDir, buyerEscrowDir } from '../config.js'

type PayFlags = {
  method?: string
  data?: string
  header?: string[]
  maxAmount: string
  rpcUrl?: string
  verbose?: boolean
}

/** `localFetch` for `wrapFetchWithPayment`; a network failure becomes a one-line error. */
async function requestFetch(input: Request): Promise<Response> {
  try {
    return await localFetch(input)
  } catch (error) {
    const code = errorCode(error)
    throw new SvcError(`cannot reach ${input.url}${code ? ` (${code})` : ''}`, { cause: error, code: 'unreachable' })
  }
}

type Offer = { network: string; asset: string; amount: string; extra?: Record<string, unknown> }

/** What `svc pay` pays with: the Sandbox USDC, the same on every sandbox (the 402 names it; nothing else is asked). */
const usdc = { network: sandboxNetwork, address: usdcAddress }

/** Why the client would not pay a 402's offers, in the buyer's terms; undefined when it is not the price or the asset. */
function refusalReason(offers: Offer[], maxAmount: string, maxText: string): string | undefined {
  const ours = offers.filter(
    (offer) => offer.network === usdc.network && offer.asset.toLowerCase() === usdc.address.toLowerCase(),
  )
  if (ours.length === 0) return `the gateway asks for no Sandbox USDC on ${usdc.network}`
  const cheapest = ours.reduce((a, b) => (BigInt(a.amount) <= BigInt(b.amount) ? a : b))
  if (BigInt(cheapest.amount) > BigInt(maxAmount))
    return `the price ${describeAccept(cheapest)} is above --max-amount ${maxText} USDC`
  return undefined
}

/** What a buyer refused for a missing Permit2 allowance can do. */
const permit2Hint =
  ': the payment goes through Permit2 and the buyer has not approved it: run `svc faucet ADDRESS --approve-permit2`, or pass --rpc-url (SVC_RPC_URL) so the client signs an EIP-2612 permit the gateway sponsors'

/** `: <the answer's error>` (a JSON body's `error`, or a 402's PAYMENT-REQUIRED `error`), cut to one line; or ''. */
function answerReason(text: string, required: string | null, decode: (header: string) => { error?: string }): string {
  let error: unknown
  try {
    error = (JSON.parse(text) as { error?: unknown }).error
  } catch {}
  if (typeof error !== 'string' && required) {
    try {
      error = decode(required).error
    } catch {}
  }
  if (typeof error !== 'string' || error === '') return ''
  const line = error.replace(/\s+/g, ' ').trim()
  return `: ${line.length > 300 ? `${line.slice(0, 299)}…` : line}`
}

/** True when `body` is a JSON document (`--data '{"a":1}'`). */
function isJsonText(body: string): boolean {
  try {
    JSON.parse(body)
    return true
  } catch {
    return false
  }
}

/** The request headers: `--header`s, plus `content-type: application/json` for a JSON body sent without a content type. */
function requestHeaders(flags: string[] | undefined, body: string | undefined): Record<string, string> {
  const headers = parseHeaders(flags)
  const typed = headers.some(([name]) => name.toLowerCase() === 'content-type')
  if (body !== undefined && !typed && isJsonText(body)) headers.push(['content-type', 'application/json'])
  return Object.fromEntries(headers)
}

/**
 * `svc pay URL`: a buyer paying a gateway URL with the official x402 client (`wrapFetchWithPayment` with `@x402/evm`'s
 * exact and upto schemes): exact by EIP-3009 or Permit2, upto by Permit2 (charged what the seller settles, at most
 * the price it names).
 */
export function registerPay(program: Command, ctx: CliContext) {
  addCommand(
    program,
    'pay',
    'request a gateway URL as a buyer and pay its 402 with SVC_EVM_PRIVATE_KEY (the Sandbox USDC)',
  )
    .argument('<url>', 'a gateway URL, e.g. http://weather.dev.localhost:4020/forecast/paris')
    .option('-X, --method <method>', 'HTTP method (default GET, or POST with --data)')
    .option(
      '-d, --data <body>',
      'request body; @FILE reads it from a file; sent as application/json when it is JSON and no --header gives a content type',
    )
    .option('-H, --header <name:value>', 'a request header; repeatable', (value: string, previous: string[] = []) => [
      ...previous,
      value,
    ])
    .option('--max-amount <usdc>', 'the most one payment may cost, in USDC (for upto: the maximum it signs)', '1')
    .option(
      '--rpc-url <url>',
      'the Sandbox chain RPC (default: SVC_RPC_URL, else what the svc serving the URL says): lets a Permit2 payment sign an EIP-2612 permit where the gateway sponsors it, instead of needing an approval (svc faucet --approve-permit2)',
    )
    .option('--verbose', 'on a failure too, print the status and the whole answer (by default: one line saying why)')
    .action(
      action<PayFlags>(ctx, async (call, url) => {
        const privateKey = call.env.SVC_EVM_PRIVATE_KEY?.trim()
        if (!privateKey)
          throw new UsageError("`svc pay` needs SVC_EVM_PRIVATE_KEY: the buyer's private key (0x and 64 hex digits)")
        if (!/^0x[0-9a-fA-F]{64}$/.test(privateKey))
          throw new UsageError('SVC_EVM_PRIVATE_KEY must be 0x and 64 hex digits')
        const maxAmount = parseDecimalAmount(call.options.maxAmount, '--max-amount')
        const { data } = call.options
        const body =
          data === undefined ? undefined : data.startsWith('@') ? readTextFile(data.slice(1), 'the --data file') : data
        const headers = requestHeaders(call.options.header, body)
        const method = (call.options.method ?? (body === undefined ? 'GET' : 'POST')).toUpperCase()
        if (!URL.canParse(url!)) throw new UsageError(`not a URL: "${url}"`)

        // What the client may pay: the Sandbox USDC, up to --max-amount per payment. The URL and its 402 say the rest
        // (network, asset, price, EIP-712 domain). The svc serving the URL (the Sandbox control plane on the URL's
        // port) says its clock and its chain's RPC; a gateway that does not answer them is paid as its 402 asks.
        const given = call.options.rpcUrl ?? (call.env.SVC_RPC_URL?.trim() || undefined)
        if (given !== undefined && !URL.canParse(given))
          throw new UsageError(`--rpc-url (or SVC_RPC_URL) is not a URL: "${given}"`)
        const svc = await askGatewaySvc(url!, call.settings().baseUrl)
        // The RPC lets a Permit2 payment (exact by Permit2, upto) sign an EIP-2612 permit the gateway sponsors.
        const rpcUrl = given ?? svc.rpcUrl
        const [
          { x402Client, wrapFetchWithPayment, decodePaymentResponseHeader },
          { decodePaymentRequiredHeader },
          { ExactEvmScheme },
          { UptoEvmScheme },
          { privateKeyToAccount },
          { BatchSettlementEvmScheme },
          { FileClientChannelStorage },
          { toClientEvmSigner },
          { createPublicClient, http },
          { AuthCaptureEvmScheme },
          { buyerEscrowPaymentOf },
        ] = await Promise.all([
          import('@x402/fetch'),
          import('@x402/core/http'),
          import('@x402/evm/exact/client'),
          import('@x402/evm/upto/client'),
          import('../viem-keys.js'),
          import('@x402/evm/batch-settlement/client'),
          import('@x402/evm/batch-settlement/client/file-storage'),
          import('@x402/evm'),
          import('viem'),
          import('@x402/evm/auth-capture/client'),
          import('../../core/auth-capture/buyer.js'),
        ])
        const account = privateKeyToAccount(privateKey as `0x${string}`)
        const rpc = rpcUrl ? { rpcUrl } : undefined
        // svc's own buyer signs by svc's clock, which `svc time advance` moves ahead of the machine's.
        const ahead = () => svc.aheadSeconds
        // The amount signed: what an exact payment charges (an upto's PAYMENT-RESPONSE names its own).
        let signed: string | undefined
        // A deferred auth-capture payment is held in escrow, not charged: the seller captures it later (or the buyer
        // reclaims it after the capture deadline).
        let held = false
        const signing = (scheme: Parameters<typeof signingBySvcClock>[0]) => {
          const inner = signingBySvcClock(scheme, ahead)
          return {
            ...inner,
            createPaymentPayload: (...args: Parameters<typeof inner.createPaymentPayload>) => {
              signed = args[1].amount
              return inner.createPaymentPayload(...args)
            },
          }
        }
        // A batch-settlement route is paid from a channel: the first payment deposits, the next ones sign vouchers. The
        // channels are kept beside svc's settings (the package's file storage), so the next `svc pay` spends on.
        const channels = new BatchSettlementEvmScheme(
          rpcUrl ? toClientEvmSigner(account, createPublicClient({ transport: http(rpcUrl) })) : account,
          { storage: new FileClientChannelStorage({ directory: buyerChannelsDir(call.env) }) },
        )
        const client = new x402Client()
          .register(usdc.network, signing(new ExactEvmScheme(account, rpc)))
          .register(usdc.network, signing(new UptoEvmScheme(account, rpc)))
          .register(usdc.network, signing(channels))
          .register(usdc.network, signing(new AuthCaptureEvmScheme(account)))
        // An auth-capture (escrow) payment is kept beside svc's settings as soon as it is signed, so the buyer can
        // reclaim what the escrow still holds after its capture deadline (`svc payments reclaim`).
        client.onAfterPaymentCreation(async ({ paymentPayload }) => {
          const made = buyerEscrowPaymentOf(paymentPayload)
          if (!made) return
          held = (paymentPayload.accepted.extra as { captureMode?: unknown } | undefined)?.captureMode === 'deferred'
          const directory = buyerEscrowDir(call.env)
          mkdirSync(directory, { recursive: true })
          const kept = { ...made, url, method, created_at: new Date().toISOString() }
          writeFileSync(join(directory, `${made.paymentInfoHash}.json`), `${JSON.stringify(kept, null, 2)}\n`)
        })
        client.setSpendControls({
          allowedAssets: [{ network: usdc.network, asset: usdc.address, maxAmountPerPayment: maxAmount }],
        })
        // The last PAYMENT-REQUIRED seen, to explain a refusal.
        let required: string | null = null
        const pay = wrapFetchWithPayment(
          (async (request: Request) => {
            const response = await requestFetch(request)
            if (response.status === 402) required = response.headers.get('payment-required')
            return response
          }) as typeof fetch,
          client,
        )

        let response: Response
        try {
          response = await pay(url!, { method, headers, body })
        } catch (error) {
          if (error instanceof SvcError) throw error
          // Everything else comes from the x402 client: the requirements, the spend controls, the signature.
          const offers = required ? (decodePaymentRequiredHeader(required).accepts as Offer[]) : []
          const reason = refusalReason(offers, maxAmount, call.options.maxAmount) ?? toSvcError(error).message
          throw new SvcError(`no payment made: ${reason}`, { cause: error, code: 'payment_refused' })
        }
        const header = response.headers.get('payment-response')
        const settlement = header ? decodePaymentResponseHeader(header) : null
        const text = await response.text()
        const isJson = (response.headers.get('content-type') ?? '').includes('json')
        const failed = response.status >= 400
        if (call.out.isJson) {
          let parsed: unknown = text
          if (isJson && text) parsed = JSON.parse(text)
          call.out.json({ status: response.status, payment_response: settlement, body: parsed })
        } else if (!failed || call.options.verbose) {
          call.out.line(call.out.bold(`HTTP ${response.status} ${response.statusText}`.trim()))
          // A batch-settlement payment names its charge in extra.chargedAmount (a deposit's amount is the deposit, a
          // voucher has no transaction); an upto one in amount (0 settles without a transaction); an exact one what
          // was signed.
          const chargedAmount = (settlement?.extra as { chargedAmount?: unknown } | undefined)?.chargedAmount
          const amount =
            (typeof chargedAmount === 'string' ? chargedAmount : undefined) ||
            settlement?.amount ||
            (settlement?.success ? signed : undefined)
          const charged =
            amount === undefined
              ? ''
              : ` ${held ? 'held' : 'charged'} ${formatUsdc(amount)} USDC${held ? ' in escrow' : ''}`
          if (settlement)
            call.out.line(
              `paid: ${settlement.success ? 'settled' : 'failed'}${charged} tx ${settlement.transaction || '-'} on ${settlement.network}${settlement.payer ? ` by ${settlement.payer}` : ''}`,
            )
          else call.out.line(call.out.dim('no PAYMENT-RESPONSE (nothing was paid)'))
          if (text) call.out.line(text.replace(/\n$/, ''))
        }
        if (failed) {
          const refusal = response.status === 402 && /permit2_allowance_required/.test(text) ? permit2Hint : ''
          const why =
            refusal || answerReason(text, response.headers.get('payment-required'), decodePaymentRequiredHeader)
          throw new SvcError(`${method} ${url} answered ${response.status}${why}`)
        }
      }),
    )
}
