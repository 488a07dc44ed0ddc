import { homedir } from 'node:os'
import { join } from 'node:path'
import type { Command } from 'commander'
import { UsageError } from '../../server/errors.js'
import type { Sandbox } from '../../server/sandbox.js'

type UpOptions = {
  json?: boolean
  port: string
  dataDir: string
  ephemeral?: boolean
  autoVerify?: boolean
  forkUrl?: string
  facilitatorUrl?: string
  dnsServers?: string
  rpcPort: string
  chainManagerPort: string
  facilitatorPort: string
}

/** `svc up`: starts the sandbox and runs until Ctrl-C / SIGTERM. */
export function registerUp(program: Command, env: NodeJS.ProcessEnv) {
  program
    .command('up')
    .description('start the sandbox: chain, chain manager, facilitator, control planes and gateway')
    .option('--json', 'print exactly one JSON line with the URLs when ready')
    .option('--port <port>', 'port of the control planes and the gateway; 0 picks a free one', env.SVC_PORT ?? '4020')
    .option('--data-dir <dir>', 'where the database and the install secrets live (SVC_DATA_DIR)', env.SVC_DATA_DIR ?? join(homedir(), '.svc'))
    .option('--ephemeral', 'keep data in a temporary directory, removed on exit')
    .option('--auto-verify', 'mark new accounts verified at once (SVC_AUTO_VERIFY=1)', ['1', 'true'].includes(env.SVC_AUTO_VERIFY ?? ''))
    .option('--fork-url <url>', 'fork this chain instead of starting offline (SVC_FORK_URL)', env.SVC_FORK_URL)
    .option('--facilitator-url <url>', 'facilitator of production APIs (SVC_FACILITATOR_URL)', env.SVC_FACILITATOR_URL)
    .option('--dns-servers <list>', 'DNS servers for custom-domain checks, comma-separated host[:port] (SVC_DNS_SERVERS)', env.SVC_DNS_SERVERS)
    .option('--rpc-port <port>', 'port of the chain RPC; 0 picks a free one', '0')
    .option('--chain-manager-port <port>', 'port of the chain manager; 0 picks a free one', '0')
    .option('--facilitator-port <port>', 'port of the facilitator; 0 picks a free one', '0')
    .action(async (options: UpOptions) => {
      const say = options.json ? () => {} : (line: string) => process.stderr.write(`${line}\n`)
      const ports = {
        port: parsePort(options.port, '--port'),
        rpcPort: parsePort(options.rpcPort, '--rpc-port'),
        chainManagerPort: parsePort(options.chainManagerPort, '--chain-manager-port'),
        facilitatorPort: parsePort(options.facilitatorPort, '--facilitator-port'),
      }
      const started = performance.now()
      // Loaded here, not at the top: every other command starts without the server's modules.
      const [{ startSandbox }, { resolveAnvilBinary }] = await Promise.all([import('../../server/sandbox.js'), import('../../chain/anvil.js')])
      const sandbox = await startSandbox({
        dataDir: options.ephemeral ? undefined : options.dataDir,
        port: ports.port,
        autoVerify: options.autoVerify,
        binary: resolveAnvilBinary(env.SVC_ANVIL_BIN),
        forkUrl: options.forkUrl,
        productionFacilitatorUrl: options.facilitatorUrl,
        dnsServers: options.dnsServers?.split(',').map((s) => s.trim()).filter(Boolean),
        rpcPort: ports.rpcPort,
        chainManagerPort: ports.chainManagerPort,
        facilitatorPort: ports.facilitatorPort,
        log: (message) => process.stderr.write(`${message}\n`),
        onProgress: (line) => say(`svc: ${line}`),
      })
      const { chain } = sandbox.chain
      chain.on('restart', ({ generation, reason }) => say(`svc: ${reason}: started a fresh chain (generation ${generation}); balances were reset`))
      chain.on('error', (error) => process.stderr.write(`svc: chain restart failed: ${error.message}\n`))

      if (options.json) process.stdout.write(`${JSON.stringify(readyLine(sandbox))}\n`)
      else printUrls(sandbox, performance.now() - started)
      await waitForShutdown(sandbox, say)
    })
}

export function readyLine({ chain, server }: Sandbox) {
  return {
    control_url: server.controlUrl,
    sandbox_control_url: server.sandboxControlUrl,
    platform_domain: server.hosts.platformDomain,
    sandbox_platform_domain: server.hosts.sandboxPlatformDomain,
    gateway_port: server.port,
    rpc_url: chain.rpcUrl,
    facilitator_url: chain.facilitatorUrl,
    chain_manager_url: chain.chainManagerUrl,
    chain_id: chain.chain.chainId,
    network: chain.chain.network,
    usdc: chain.chain.usdc.address,
    data_dir: server.dataDir,
  }
}

function printUrls({ chain, server }: Sandbox, ms: number) {
  const { hosts } = server
  const usdc = chain.chain.usdc
  const lines = [
    `svc: ready in ${Math.round(ms)} ms (${chain.chain.mode} chain, data in ${server.dataDir})`,
    '',
    `  control plane       ${server.controlUrl}   (production, svc_live_ keys)`,
    `  sandbox control     ${server.sandboxControlUrl}   (Sandbox, svc_sandbox_ keys)`,
    `  gateway             http://{slug}.${hosts.sandboxPlatformDomain}:${server.port}   (Sandbox APIs)`,
    `                      http://{slug}.${hosts.platformDomain}:${server.port}   (production APIs)`,
    `  RPC                 ${chain.rpcUrl}   chain id ${chain.chain.chainId} (${chain.chain.network}), ETH`,
    `  USDC                ${usdc.address}   EIP-712 "${usdc.name}" version "${usdc.version}"`,
    `  chain manager       ${chain.chainManagerUrl}   POST /faucet {"address": "0x…"}`,
    `  facilitator         ${chain.facilitatorUrl}   /supported /verify /settle`,
    '',
    'Press Ctrl-C to stop.',
  ]
  process.stdout.write(`${lines.join('\n')}\n`)
}

function parsePort(value: string, flag: string): number {
  const port = Number(value)
  if (!/^\d+$/.test(value) || port > 65_535) throw new UsageError(`${flag} must be a port number (0-65535), got "${value}"`)
  return port
}

async function waitForShutdown(sandbox: Sandbox, say: (line: string) => void) {
  await new Promise<void>((resolve) => {
    const stop = (signal: string) => {
      say(`svc: ${signal}: stopping…`)
      resolve()
    }
    process.once('SIGINT', () => stop('SIGINT'))
    process.once('SIGTERM', () => stop('SIGTERM'))
  })
  await sandbox.stop()
  say('svc: stopped')
}
