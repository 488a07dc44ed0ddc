import type { Command } from 'commander'
import type { Endpoint, EndpointUpdate } from '../../sdk/types.js'
import { UsageError } from '../../core/errors.js'
import {
  acceptsFromFlags,
  extraFromFlags,
  withExtra,
  withExtraFlags,
  type AcceptFlags,
  type ExtraFlags,
} from '../accepts.js'
import { describeAccept, priceFrom, type PriceOptions } from '../amounts.js'
import { action, addCommand, type CliContext } from '../context.js'
import { parseInteger, readSchema } from '../inputs.js'
import type { Output } from '../output.js'

type SchemaFlags = { requestSchema?: string; responseSchema?: string; description?: string }
type AddFlags = PriceOptions &
  AcceptFlags &
  SchemaFlags & { method: string; path: string; ttl?: string; siwx?: string; requirePaymentId?: boolean }
type UpdateFlags = PriceOptions &
  ExtraFlags &
  SchemaFlags & {
    method?: string
    path?: string
    enable?: boolean
    disable?: boolean
    clearSchemas?: boolean
    /** Seconds, or false for `--no-siwx`. */
    siwx?: string | false
    requirePaymentId?: boolean
  }

function withPriceFlags(command: Command): Command {
  return command
    .option('--price <usdc>', 'price in USDC, a decimal like 0.01 (= 10000 atomic units)')
    .option('--amount <atomic>', 'price in atomic units of the asset, e.g. 10000')
}

function withSchemaFlags(command: Command): Command {
  return command
    .option('--request-schema <file|json>', 'JSON Schema of the request body: inline JSON or a JSON/YAML file')
    .option('--response-schema <file|json>', 'JSON Schema of the 200 response: inline JSON or a JSON/YAML file')
    .option('--description <text>', 'what the endpoint does')
}

const siwxHelp =
  "sign-in-with-x: a wallet that paid for the endpoint is served without paying again for this many seconds (by svc's clock)"
const siwxFrom = (seconds: string) => ({ access_seconds: parseInteger(seconds, '--siwx', 1, 31_536_000) })

export function endpointRow(e: Endpoint) {
  const price = e.accepts.map(describeAccept).join(' | ')
  return [e.id, e.method, e.path_pattern, price, e.enabled ? 'enabled' : 'disabled', e.schema_source, e.expires_at]
}
export const endpointHeaders = ['ID', 'METHOD', 'PATH', 'PRICE', 'STATUS', 'SCHEMA', 'EXPIRES']

function printEndpoint(out: Output, e: Endpoint) {
  out.fields([
    ['id', e.id],
    ['route', `${e.method} ${e.path_pattern}`],
    ['price', e.accepts.map(describeAccept).join(' | ')],
    ['network', e.accepts[0]?.network],
    ['asset', e.accepts[0]?.asset],
    ['status', e.enabled ? 'enabled' : 'disabled'],
    ['flow', (e.accepts[0]?.extra?.paymentFlow as string | undefined) ?? 'authorization'],
    ['sign-in', e.siwx ? `for ${e.siwx.access_seconds} s after paying` : 'off'],
    ['payment id', e.payment_identifier_required ? 'required' : 'optional'],
    ['schemas', e.schema_source],
    ['description', e.description],
    ['expires', e.expires_at],
  ])
}

/** `svc endpoints add|list|update|remove`. */
export function registerEndpoints(program: Command, ctx: CliContext) {
  const endpoints = program.command('endpoints').description('the paid routes of an API and what they cost')

  const add = addCommand(endpoints, 'add', 'add a paid route to an API')
    .argument('<api-id>', 'the API id')
    .option('--method <method>', 'HTTP method', 'GET')
    .requiredOption('--path <pattern>', 'path pattern, e.g. /weather/{city} or /files/*')
  withSchemaFlags(withPriceFlags(add))
    .option('--asset <address>', 'token contract (default in the Sandbox: its USDC)')
    .option('--network <caip2>', 'CAIP-2 network (default in the Sandbox: eip155:845320402)')
    .option('--max-timeout <seconds>', 'payment validity window (default 300)')
    .option(
      '--scheme <scheme>',
      'exact (the price is charged), upto (the price is a maximum; the upstream says what is charged in its Settlement-Overrides header), batch-settlement (payment channels) or auth-capture (escrow: the price is held, then captured, voided or refunded; see --capture-mode)',
      'exact',
    )
    .option('--transfer-method <method>', 'eip3009 (default for exact) or permit2 (always for upto)')
    .option('--ttl <seconds>', 'an ephemeral endpoint: removed after its first payment or this many seconds')
    .option('--siwx <seconds>', siwxHelp)
    .option('--require-payment-id', "buyers must send x402's payment-identifier extension with an id")
  withExtraFlags(add).action(
    action<AddFlags>(ctx, async (call, apiId) => {
      const { method, path, ttl, description, siwx, requirePaymentId } = call.options
      const amount = priceFrom(call.options, true)
      const requestSchema = readSchema(call.options.requestSchema, '--request-schema')
      const responseSchema = readSchema(call.options.responseSchema, '--response-schema')
      const ttlSeconds = ttl === undefined ? undefined : parseInteger(ttl, '--ttl', 1, 31_536_000)
      const accepts = await acceptsFromFlags(call, amount)
      const endpoint = await call.client().endpoints.create(apiId!, {
        method,
        path_pattern: path,
        accepts,
        ...(requestSchema === undefined ? {} : { request_schema: requestSchema }),
        ...(responseSchema === undefined ? {} : { response_schema: responseSchema }),
        ...(description === undefined ? {} : { description }),
        ...(ttlSeconds === undefined ? {} : { ttl: ttlSeconds }),
        ...(siwx === undefined ? {} : { siwx: siwxFrom(siwx) }),
        ...(requirePaymentId ? { payment_identifier_required: true } : {}),
      })
      if (call.out.isJson) return call.out.json(endpoint)
      call.out.line(
        `added ${endpoint.method} ${endpoint.path_pattern} (${endpoint.id}) at ${describeAccept(endpoint.accepts[0]!)}`,
      )
    }),
  )

  addCommand(endpoints, 'list', "an API's endpoints")
    .argument('<api-id>', 'the API id')
    .action(
      action(ctx, async (call, apiId) => {
        const list = await call.client().endpoints.list(apiId!)
        if (call.out.isJson) return call.out.json({ endpoints: list })
        call.out.table(endpointHeaders, list.map(endpointRow), 'no endpoints')
      }),
    )

  const update = addCommand(endpoints, 'update', 'change an endpoint: only what is given changes')
    .argument('<api-id>', 'the API id')
    .argument('<endpoint-id>', 'the endpoint id')
    .option('--method <method>', 'HTTP method')
    .option('--path <pattern>', 'path pattern')
    .option('--enable', 'serve the route again')
    .option('--disable', 'stop serving the route (and list it nowhere)')
    .option('--clear-schemas', 'clear both schemas and infer them again')
    .option('--siwx <seconds>', siwxHelp)
    .option('--no-siwx', 'turn sign-in-with-x off')
    .option('--require-payment-id', "buyers must send x402's payment-identifier extension with an id")
    .option('--no-require-payment-id', 'the payment-identifier extension is optional again')
  withExtraFlags(withSchemaFlags(withPriceFlags(update))).action(
    action<UpdateFlags>(ctx, async (call, apiId, endpointId) => {
      const o = call.options
      if (o.enable && o.disable) throw new UsageError('give --enable or --disable, not both')
      const requestSchema = readSchema(o.requestSchema, '--request-schema')
      const responseSchema = readSchema(o.responseSchema, '--response-schema')
      if (o.clearSchemas && (requestSchema !== undefined || responseSchema !== undefined))
        throw new UsageError('--clear-schemas cannot be combined with --request-schema or --response-schema')
      const amount = priceFrom(o, false)
      const extra = extraFromFlags(o)
      const input: EndpointUpdate = {
        ...(o.method === undefined ? {} : { method: o.method }),
        ...(o.path === undefined ? {} : { path_pattern: o.path }),
        ...(o.enable || o.disable ? { enabled: o.enable === true } : {}),
        ...(o.clearSchemas ? { clear_schemas: true } : {}),
        ...(requestSchema === undefined ? {} : { request_schema: requestSchema }),
        ...(responseSchema === undefined ? {} : { response_schema: responseSchema }),
        ...(o.description === undefined ? {} : { description: o.description === '' ? null : o.description }),
        ...(o.siwx === undefined ? {} : { siwx: o.siwx === false ? null : siwxFrom(o.siwx) }),
        ...(o.requirePaymentId === undefined ? {} : { payment_identifier_required: o.requirePaymentId }),
      }
      if (amount === undefined && extra === undefined && Object.keys(input).length === 0)
        throw new UsageError('nothing to change: give at least one option (see --help)')
      const client = call.client()
      if (amount !== undefined || extra !== undefined) {
        // A new price, payment flow or gas sponsoring applies to every accept option, keeping the rest of each.
        const current = await client.endpoints.get(apiId!, endpointId!)
        const priced = current.accepts.map((accept) => (amount === undefined ? accept : { ...accept, amount }))
        input.accepts = extra ? withExtra(priced, extra) : priced
      }
      const endpoint = await client.endpoints.update(apiId!, endpointId!, input)
      if (call.out.isJson) return call.out.json(endpoint)
      printEndpoint(call.out, endpoint)
    }),
  )

  addCommand(endpoints, 'remove', 'delete an endpoint')
    .argument('<api-id>', 'the API id')
    .argument('<endpoint-id>', 'the endpoint id')
    .action(
      action(ctx, async (call, apiId, endpointId) => {
        const result = await call.client().endpoints.delete(apiId!, endpointId!)
        if (call.out.isJson) return call.out.json(result)
        call.out.line(`removed endpoint ${result.id}`)
      }),
    )
}
