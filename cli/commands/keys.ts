import type { Command } from 'commander'
import type { ApiKey } from '../../sdk/types.js'
import { UsageError } from '../../core/errors.js'
import { action, addCommand, type CliContext } from '../context.js'
import { parseList } from '../inputs.js'

const presets = ['readonly', 'apiManager', 'analytics']

/** `svc keys create|list|revoke`: API keys are managed with a JWT only (exit code 2 without one). */
export function registerKeys(program: Command, ctx: CliContext) {
  const keys = program.command('keys').description('API keys (needs a login session: a JWT, not an API key)')

  addCommand(keys, 'create', 'create an API key of the current environment; its secret is shown once')
    .requiredOption('--name <name>', 'a name to tell keys apart')
    .option('--scopes <list>', 'comma-separated scopes, e.g. apis:read,endpoints:write')
    .option('--preset <name>', `a scope preset: ${presets.join(', ')}`)
    .action(
      action<{ name: string; scopes?: string; preset?: string }>(ctx, async (call) => {
        const { name, scopes, preset } = call.options
        if ((scopes === undefined) === (preset === undefined))
          throw new UsageError('give --scopes or --preset (one of them)')
        if (preset !== undefined && !presets.includes(preset))
          throw new UsageError(`--preset must be one of ${presets.join(', ')}, got "${preset}"`)
        const client = call.client('jwt')
        const key = await client.keys.create(preset ? { name, preset } : { name, scopes: parseList(scopes!) })
        if (call.out.isJson) return call.out.json(key)
        call.out.line(
          `created ${key.environment} key ${call.out.bold(key.name)} (${key.id}) with ${key.scopes.join(', ')}`,
        )
        call.out.line(`secret (shown only this once): ${key.key}`)
      }),
    )

  addCommand(keys, 'list', "the account's keys of the current environment").action(
    action(ctx, async (call) => {
      const list = await call.client('jwt').keys.list()
      if (call.out.isJson) return call.out.json({ api_keys: list })
      call.out.table(['ID', 'NAME', 'PREFIX', 'ENV', 'SCOPES', 'LAST USED', 'STATUS'], list.map(keyRow), 'no API keys')
    }),
  )

  addCommand(keys, 'revoke', 'revoke a key (harmless if it already is)')
    .argument('<id>', 'the key id')
    .action(
      action(ctx, async (call, id) => {
        const key = await call.client('jwt').keys.revoke(id!)
        if (call.out.isJson) return call.out.json(key)
        call.out.line(`revoked key ${key.name} (${key.id})`)
      }),
    )
}

function keyRow(key: ApiKey) {
  return [
    key.id,
    key.name,
    key.prefix,
    key.environment,
    key.scopes.join(','),
    key.last_used_at,
    key.revoked_at ? 'revoked' : 'active',
  ]
}
