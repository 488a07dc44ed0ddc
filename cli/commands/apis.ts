import type { Command } from 'commander'
import type { Api, ApiInput } from '../../sdk/types.js'
import { UsageError } from '../../core/errors.js'
import { action, addCommand, type CliContext } from '../context.js'
import { emptyListMessage } from '../elsewhere.js'
import type { Output } from '../output.js'

type ApiFlags = {
  name?: string
  slug?: string
  upstream?: string
  payTo?: string
  guidance?: string
  contactEmail?: string
  openapiVersion?: string
}

/** The API fields given as flags; an empty --guidance or --contact-email clears it. */
function apiFields(flags: ApiFlags): Partial<ApiInput> {
  const orNull = (value: string | undefined) => (value === undefined ? undefined : value === '' ? null : value)
  const fields: Partial<ApiInput> = {
    name: flags.name,
    slug: flags.slug,
    upstream_base_url: flags.upstream,
    ...(flags.payTo === undefined ? {} : { pay_to_mode: 'user_wallet' as const, pay_to_address: flags.payTo }),
    discovery_guidance: orNull(flags.guidance),
    discovery_contact_email: orNull(flags.contactEmail),
    openapi_version: flags.openapiVersion,
  }
  return Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined))
}

function withApiFlags(command: Command, required: boolean): Command {
  const add = (flags: string, description: string) =>
    required ? command.requiredOption(flags, description) : command.option(flags, description)
  add('--name <name>', 'display name')
  add('--slug <slug>', 'gateway subdomain: {slug}.localhost ({slug}.dev.localhost in the Sandbox)')
  add('--upstream <url>', 'base URL of the upstream API')
  add('--pay-to <address>', 'the address that receives payments')
  return command
    .option('--guidance <text>', 'free-text guidance for agents (OpenAPI info.x-guidance); "" clears it')
    .option('--contact-email <email>', 'contact email of the discovery document; "" clears it')
    .option('--openapi-version <version>', 'info.version of the discovery document (default 1.0.0)')
}

export function printApi(out: Output, api: Api) {
  out.fields([
    ['id', api.id],
    ['name', api.name],
    ['slug', api.slug],
    ['environment', api.environment],
    ['gateway', api.gateway_url],
    ['direct url', api.direct_url],
    ['upstream', api.upstream_base_url],
    ['pay to', api.pay_to_address],
    ['guidance', api.discovery_guidance],
    ['contact email', api.discovery_contact_email],
    ['openapi version', api.openapi_version],
    ['updated', api.updated_at],
  ])
}

/** `svc apis list|create|get|update|delete`. */
export function registerApis(program: Command, ctx: CliContext) {
  const apis = program.command('apis').description('the APIs you sell through the gateway')

  addCommand(apis, 'list', 'your APIs of the current environment').action(
    action(ctx, async (call) => {
      const list = await call.client().apis.list()
      if (call.out.isJson) return call.out.json({ apis: list })
      call.out.table(
        ['ID', 'SLUG', 'NAME', 'ENV', 'GATEWAY'],
        list.map((a) => [a.id, a.slug, a.name, a.environment, a.gateway_url]),
        list.length
          ? ''
          : await emptyListMessage(call.settings(), {
              what: ['API', 'APIs'],
              command: 'svc apis list',
              count: async (client) => (await client.apis.list()).length,
              create: 'svc apis create --sandbox …',
            }),
      )
    }),
  )

  withApiFlags(addCommand(apis, 'create', 'register an API'), true).action(
    action<ApiFlags>(ctx, async (call) => {
      const api = await call
        .client()
        .apis.create({ pay_to_mode: 'user_wallet', ...apiFields(call.options) } as ApiInput)
      if (call.out.isJson) return call.out.json(api)
      call.out.line(`created API ${call.out.bold(api.slug)} (${api.id}): ${api.gateway_url}`)
    }),
  )

  addCommand(apis, 'get', 'one API')
    .argument('<id>', 'the API id')
    .action(
      action(ctx, async (call, id) => {
        const api = await call.client().apis.get(id!)
        if (call.out.isJson) return call.out.json(api)
        printApi(call.out, api)
      }),
    )

  withApiFlags(addCommand(apis, 'update', 'change an API: only the fields given change'), false)
    .argument('<id>', 'the API id')
    .action(
      action<ApiFlags>(ctx, async (call, id) => {
        const fields = apiFields(call.options)
        if (Object.keys(fields).length === 0)
          throw new UsageError('nothing to change: give at least one field (see --help)')
        const api = await call.client().apis.update(id!, fields)
        if (call.out.isJson) return call.out.json(api)
        printApi(call.out, api)
      }),
    )

  addCommand(apis, 'delete', 'delete an API and its endpoints')
    .argument('<id>', 'the API id')
    .action(
      action(ctx, async (call, id) => {
        const result = await call.client().apis.delete(id!)
        if (call.out.isJson) return call.out.json(result)
        call.out.line(`deleted API ${result.id}`)
      }),
    )
}
