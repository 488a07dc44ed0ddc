import type { Command } from 'commander'
import type { SvcClient } from '../sdk/client.js'
import { SvcApiError, SvcError, UsageError } from '../core/errors.js'
import { createOutput, type Io, type Output } from './output.js'
import { refusedMessage, type Refusal } from './session-target.js'
import { clientFor, resolveSettings, type GlobalOptions, type Settings } from './settings.js'

/** What every command gets from the entry point: the environment variables and where to write. */
export type CliContext = { env: NodeJS.ProcessEnv; io: Io }

/** One run of a command: its options (with the global ones), its output, and lazily resolved settings. */
export type Call<O> = {
  options: O & GlobalOptions
  env: NodeJS.ProcessEnv
  io: Io
  out: Output
  /** `svc keys list`, for messages. */
  name: string
  settings(): Settings
  /** See {@link clientFor}. */
  client(need?: 'public' | 'any' | 'jwt' | 'sandbox'): SvcClient
}

/** A leaf command: every one takes `--json`. */
export function addCommand(
  parent: Command,
  spec: string,
  description: string,
  options: { isDefault?: boolean } = {},
): Command {
  const command = parent
    .command(spec, options)
    .description(description)
    .option('--json', 'print the raw JSON answer (one document)')
  // `svc payments cancel ID` reaches the default subcommand (`list`) with `cancel ID` as its arguments: say which
  // subcommand is unknown rather than commander's "too many arguments for 'list'".
  if (options.isDefault)
    command.allowExcessArguments(true).hook('preAction', (called) => {
      const unknown = called.args[called.registeredArguments.length]
      if (unknown === undefined) return
      const known = parent.commands.map((sub) => sub.name()).join(', ')
      throw new UsageError(`unknown command '${unknown}' for '${commandPath(parent)}' (one of ${known})`)
    })
  return command
}

function commandPath(command: Command): string {
  const names: string[] = []
  for (let current: Command | null = command; current; current = current.parent) names.unshift(current.name())
  return names.join(' ')
}

/** Adapts a handler `(call, ...arguments)` to commander's `(...arguments, options, command)`. */
export function action<O extends object>(
  ctx: CliContext,
  handler: (call: Call<O>, ...args: string[]) => Promise<void>,
) {
  return async (...params: unknown[]) => {
    const command = params.at(-1) as Command
    const args = params.slice(0, -2) as string[]
    const options = command.optsWithGlobals() as O & GlobalOptions
    const name = commandPath(command)
    let settings: Settings | undefined
    // The last 401 a client of this call was answered: the error names the URL that refused which credential.
    let refused: Refusal | undefined
    const call: Call<O> = {
      options,
      env: ctx.env,
      io: ctx.io,
      out: createOutput(ctx.io, ctx.env, options.json === true),
      name,
      settings: () => (settings ??= resolveSettings(options, ctx.env)),
      client: (need = 'any') =>
        clientFor(call.settings(), need, `\`${name}\``, (refusal) => {
          refused = refusal
        }),
    }
    try {
      await handler(call, ...args)
    } catch (error) {
      if (refused && error instanceof SvcApiError && error.status === 401)
        throw new SvcError(refusedMessage(error.message, refused), { status: 401, cause: error })
      throw error
    }
  }
}
