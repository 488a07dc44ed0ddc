#!/usr/bin/env node
import '../chain/polyfill.js'
import { Command, CommanderError } from 'commander'
import { SvcError } from '../server/errors.js'
import { registerUp } from './commands/up.js'

/**
 * The `svc` command. Exit codes: 0 success, 1 API error, 2 usage error. The only place that sets them.
 */
export async function main(argv: string[], env: NodeJS.ProcessEnv): Promise<number> {
  const program = new Command()
    .name('svc')
    .description('A self-hosted x402 sandbox: a local chain with USDC, a faucet and an x402 facilitator.')
    .exitOverride()
    .configureOutput({ outputError: (text, write) => write(text.split('\n')[0] + '\n') })
  registerUp(program, env)

  try {
    await program.parseAsync(argv)
    return 0
  } catch (error) {
    if (error instanceof CommanderError) {
      // --help and --version end here too, with exit code 0.
      return error.exitCode === 0 ? 0 : 2
    }
    const message = error instanceof SvcError ? error.message : ((error as Error)?.message ?? String(error))
    process.stderr.write(`svc: ${message.split('\n')[0]}\n`)
    return error instanceof SvcError ? error.exitCode : 1
  }
}

const code = await main(process.argv, process.env)
// prool's child-process cleanup can keep the event loop alive for seconds after stop: leave now.
process.exit(code)
