import { homedir } from 'node:os'
import { join } from 'node:path'
import { type Command, Option } from 'commander'
import { defaultPort } from '../core/hosts.js'
import { portNumber } from './inputs.js'

/** What `svc up`'s flags (and their environment variables) give its action. */
export type UpOptions = {
  json?: boolean
  /** A number from the command line; SVC_PORT's text otherwise (commander does not parse a default). */
  port: number | string
  dataDir: string
  ephemeral?: boolean
  autoVerify?: boolean
  forkUrl?: string
  freshChain?: boolean
  facilitatorUrl?: string
  rpc: string[]
  dnsServers?: string
  rpcPort: number
  chainManagerPort: number
  facilitatorPort: number
  seed?: string
  tui: boolean
  watchParent: boolean
  relay: string
  twin: string[]
  twinForkUrl?: string
}

/**
 * `svc up`'s flags, each defaulting to its environment variable where it has one. `svc exec` (`forExec`) takes them
 * with its own defaults, which its help shows: a free port and a temporary directory unless given (no variable read),
 * the demo seed (set by cli/commands/exec.ts); the flags it sets itself (`--json`, `--ephemeral`, `--no-tui`) are hidden.
 */
export function upOptions(command: Command, env: NodeJS.ProcessEnv, forExec = false): Command {
  const data =
    'where the database (SQLite: svc.sqlite) and the install secrets live; for PostgreSQL run `svc serve --database-url`'
  return command
    .addOption(new Option('--json', 'print exactly one JSON line with the URLs when ready').hideHelp(forExec))
    .addOption(
      forExec
        ? new Option('--port <port>', 'port of the control planes and the gateway; 0 picks a free one')
            .argParser(portNumber)
            .default(0)
        : new Option('--port <port>', 'port of the control planes and the gateway; 0 picks a free one (SVC_PORT)')
            .argParser(portNumber)
            .default(env.SVC_PORT ?? defaultPort),
    )
    .addOption(
      forExec
        ? new Option('--data-dir <dir>', `${data}; unless given, a temporary directory removed on exit`)
        : new Option('--data-dir <dir>', data.replace('live;', 'live (SVC_DATA_DIR);')).default(
            env.SVC_DATA_DIR ?? join(homedir(), '.svc'),
          ),
    )
    .addOption(new Option('--ephemeral', 'keep data in a temporary directory, removed on exit').hideHelp(forExec))
    .option(
      '--fresh-chain',
      'start the chain empty even when the data dir holds one (its Sandbox wallets are funded again)',
    )
    .option(
      '--auto-verify',
      'mark new accounts verified at once (SVC_AUTO_VERIFY=1)',
      ['1', 'true'].includes(env.SVC_AUTO_VERIFY ?? ''),
    )
    .option('--fork-url <url>', 'fork this chain instead of starting offline (SVC_FORK_URL)', env.SVC_FORK_URL)
    .option(
      '--twin <name>',
      'also run a twin of a testnet (base-sepolia): a local chain with its chain id and USDC, for code written for it; repeatable',
      (value: string, previous: string[]) => [...previous, value],
      [] as string[],
    )
    .option(
      '--twin-fork-url <url>',
      "fork the twin from this RPC URL of the real testnet (its chain id must be the twin's) (SVC_TWIN_FORK_URL)",
      env.SVC_TWIN_FORK_URL,
    )
    .option('--facilitator-url <url>', 'facilitator of production APIs (SVC_FACILITATOR_URL)', env.SVC_FACILITATOR_URL)
    .option(
      '--rpc <network=url>',
      "a production network's RPC, to check payments svc left unfinished on its chain; repeatable (SVC_RPC, comma-separated)",
      (value: string, previous: string[]) => [...previous, value],
      (env.SVC_RPC ?? '').split(',').filter((entry) => entry.trim() !== ''),
    )
    .option(
      '--dns-servers <list>',
      'DNS servers for custom-domain checks, comma-separated host[:port] (SVC_DNS_SERVERS)',
      env.SVC_DNS_SERVERS,
    )
    .addOption(
      new Option(
        '--seed <file>',
        `apply a seed file once started (account, keys, APIs, endpoints), or a shipped seed by name (demo, x402-e2e)${forExec ? ', demo unless given' : ''}; see fixtures/demo-seed.yaml`,
      ),
    )
    .addOption(
      new Option(
        '--no-tui',
        'no dashboard: print the URLs and run until Ctrl-C (the default when stdout is not a terminal)',
      ).hideHelp(forExec),
    )
    .option('--rpc-port <port>', 'port of the chain RPC; 0 picks a free one', portNumber, 0)
    .option('--chain-manager-port <port>', 'port of the chain manager; 0 picks a free one', portNumber, 0)
    .option('--facilitator-port <port>', 'port of the facilitator; 0 picks a free one', portNumber, 0)
    .option(
      '--relay <path>',
      "the settlement path: tuned (svc's relay) or viem (the plain viem wallet client, to compare) (SVC_RELAY)",
      env.SVC_RELAY ?? 'tuned',
    )
    .option(
      '--no-watch-parent',
      'keep running when the process that started svc exits (by default svc stops with it, e.g. with a killed `npm start`)',
    )
}
