import type { Command } from 'commander'
import { acceptsFromFlags, type AcceptFlags } from '../accepts.js'
import { priceFrom, type PriceOptions } from '../amounts.js'
import { action, addCommand, type CliContext } from '../context.js'
import { readTextFile } from '../inputs.js'
import { endpointHeaders, endpointRow } from './endpoints.js'

/** `svc import API_ID FILE`: every operation of an OpenAPI file becomes an endpoint at one price; existing routes are skipped. */
export function registerImport(program: Command, ctx: CliContext) {
  addCommand(program, 'import', 'create endpoints from an OpenAPI 3.0/3.1 file (YAML or JSON), all at one price')
    .argument('<api-id>', 'the API id')
    .argument('<file>', 'the OpenAPI file')
    .option('--price <usdc>', 'price of every endpoint in USDC, e.g. 0.01')
    .option('--amount <atomic>', 'price of every endpoint in atomic units, e.g. 10000')
    .option('--asset <address>', 'token contract (default in the Sandbox: its USDC)')
    .option('--network <caip2>', 'CAIP-2 network (default in the Sandbox: eip155:845320402)')
    .option('--max-timeout <seconds>', 'payment validity window (default 300)')
    .action(
      action<PriceOptions & AcceptFlags>(ctx, async (call, apiId, file) => {
        const amount = priceFrom(call.options, true)
        const spec = readTextFile(file!, 'the OpenAPI file')
        const client = call.client()
        const accepts = await acceptsFromFlags(call, amount)
        const { operations } = await client.openapi.parse(spec)
        const result = await client.openapi.import(apiId!, operations, accepts)
        if (call.out.isJson) return call.out.json(result)
        call.out.line(
          `created ${result.created.length}, skipped ${result.skipped.length} (of ${operations.length} operations)`,
        )
        if (result.created.length) {
          call.out.line()
          call.out.table(endpointHeaders, result.created.map(endpointRow), '')
        }
        if (result.skipped.length) {
          call.out.line()
          call.out.table(
            ['SKIPPED', 'PATH', 'REASON'],
            result.skipped.map((s) => [s.method, s.path_pattern, s.reason === 'exists' ? 'already exists' : s.reason]),
            '',
          )
        }
      }),
    )
}
