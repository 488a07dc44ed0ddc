import type { Command } from 'commander'
import { startChainServices, type ChainServices } from '../../chain/services.js'
import { resolveAnvilBinary } from '../../chain/anvil.js'
import { UsageError } from '../../server/errors.js'

type UpOptions = {
  json?: boolean
  forkUrl?: string
  rpcPort: string
  chainManagerPort: string
  facilitatorPort: string
}

/** `svc up`: starts the sandbox and runs until Ctrl-C / SIGTERM. */
export function registerUp(program: Command, env: NodeJS.ProcessEnv) {
  program
    .command('up')
    .description('start the sandbox: chain (Anvil), chain manager (faucet) and x402 facilitator')
    .option('--json', 'print exactly one JSON line with the URLs when ready')
    .option('--fork-url <url>', 'fork this chain instead of starting offline (SVC_FORK_URL)', env.SVC_FORK_URL)
    .option('--rpc-port <port>', 'port of the chain RPC; 0 picks a free one', '0')
    .option('--chain-manager-port <port>', 'port of the chain manager; 0 picks a free one', '0')
    .option('--facilitator-port <port>', 'port of the facilitator; 0 picks a free one', '0')
    .action(async (options: UpOptions) => {
      const say = options.json ? () => {} : (line: string) => process.stderr.write(`${line}\n`)
      const ports = {
        port: parsePort(options.rpcPort, '--rpc-port'),
        chainManagerPort: parsePort(options.chainManagerPort, '--chain-manager-port'),
        facilitatorPort: parsePort(options.facilitatorPort, '--facilitator-port'),
      }
      say(options.forkUrl ? `svc: starting a fork of ${options.forkUrl}…` : 'svc: starting the sandbox chain…')
      const services = await startChainServices({
        binary: resolveAnvilBinary(env.SVC_ANVIL_BIN),
        forkUrl: options.forkUrl,
        ...ports,
        log: (message) => process.stderr.write(`${message}\n`),
      })
      services.chain.on('restart', ({ generation, reason }) =>
        say(`svc: ${reason}: started a fresh chain (generation ${generation}); balances were reset`),
      )
      services.chain.on('error', (error) => process.stderr.write(`svc: chain restart failed: ${error.message}\n`))

      if (options.json) process.stdout.write(`${JSON.stringify(readyLine(services))}\n`)
      else printUrls(services)
      await waitForShutdown(services, say)
    })
}

function readyLine(services: ChainServices) {
  return {
    rpc_url: services.rpcUrl,
    facilitator_url: services.facilitatorUrl,
    chain_manager_url: services.chainManagerUrl,
    chain_id: services.chain.chainId,
    network: services.chain.network,
    usdc: services.chain.usdc.address,
  }
}

function printUrls(services: ChainServices) {
  const { chain } = services
  const lines = [
    `svc: ready in ${Math.round(chain.readyMs)} ms (${chain.mode === 'fork' ? 'fork' : 'offline'} chain)`,
    '',
    `  RPC            ${services.rpcUrl}   chain id ${chain.chainId} (${chain.network}), ETH`,
    `  USDC           ${chain.usdc.address}   EIP-712 "${chain.usdc.name}" version "${chain.usdc.version}"`,
    `  chain manager  ${services.chainManagerUrl}   POST /faucet {"address": "0x…"}`,
    `  facilitator    ${services.facilitatorUrl}   /supported /verify /settle`,
    '',
    'Press Ctrl-C to stop.',
  ]
  process.stdout.write(`${lines.join('\n')}\n`)
}

function parsePort(value: string, flag: string): number {
  const port = Number(value)
  if (!Number.isInteger(port) || port < 0 || port > 65_535) throw new UsageError(`${flag} must be a port number (0-65535), got "${value}"`)
  return port
}

async function waitForShutdown(services: ChainServices, say: (line: string) => void) {
  await new Promise<void>((resolve) => {
    const stop = (signal: string) => {
      say(`svc: ${signal}: stopping…`)
      resolve()
    }
    process.once('SIGINT', () => stop('SIGINT'))
    process.once('SIGTERM', () => stop('SIGTERM'))
  })
  await services.stop()
  say('svc: stopped')
}
