import { setTimeout as sleep } from 'node:timers/promises'
import type { Command } from 'commander'
import type { SvcClient } from '../../sdk/client.js'
import type { Balances, SandboxWallet } from '../../sdk/types.js'
import { SvcError, UsageError } from '../../core/errors.js'
import { formatUsdc } from '../../core/sandbox-usdc.js'
import { formatQuantity } from '../amounts.js'
import { action, addCommand, type Call, type CliContext } from '../context.js'
import { sandboxControlUrl } from './snapshots.js'

const assets = ['all', 'eth', 'usdc'] as const
type Asset = (typeof assets)[number]

/** How long `--wait` polls for the wallet's USDC, and how often. */
const waitMs = 30_000
const pollMs = 250

/** Polls the balances until USDC has arrived (the wallet is funded in the background), at most {@link waitMs}. */
async function waitForUsdc(client: SvcClient, address: string): Promise<Balances> {
  const deadline = Date.now() + waitMs
  for (;;) {
    const balances = await client.sandbox.balances(address)
    if (BigInt(balances.usdc_base) > 0n) return balances
    if (Date.now() > deadline)
      throw new SvcError(`no USDC arrived at ${address} within ${waitMs / 1000} s: try \`svc faucet\``)
    await sleep(pollMs)
  }
}

function balanceFields(balances: Pick<Balances, 'eth_wei' | 'usdc_base'>): [string, string][] {
  return [
    ['ETH', formatQuantity(balances.eth_wei, 18)],
    ['USDC', formatUsdc(balances.usdc_base)],
  ]
}

type WalletFlags = { wait?: boolean; key?: boolean; field?: string }

/** What `--field` prints: a field of the wallet, or the Sandbox it is on. */
const walletFields = ['address', 'private_key', 'private_key_redacted', 'funding', 'created_at', 'sandbox_url'] as const
type WalletField = (typeof walletFields)[number]

/** The one field `--key` or `--field NAME` asks for, checked before anything is asked; undefined for the whole wallet. */
function askedField({ key, field, json }: WalletFlags & { json?: boolean }): WalletField | undefined {
  if (key && field !== undefined) throw new UsageError('give --key or --field, not both')
  const asked = key ? 'private_key' : field
  if (asked === undefined) return undefined
  if (json) throw new UsageError(`--json prints the whole wallet: give ${key ? '--key' : '--field'} without it`)
  if (!walletFields.includes(asked as WalletField))
    throw new UsageError(`--field must be one of ${walletFields.join(', ')}, got "${asked}"`)
  return asked as WalletField
}

/**
 * Human output hides the private key (its redacted form only); `--json` prints the answer as it is, key included;
 * `--key` (or `--field NAME`) prints one value alone, for `KEY=$(svc sandbox-wallet get --key)`.
 */
async function showWallet(call: Call<WalletFlags>, client: SvcClient, wallet: SandboxWallet) {
  const balances = call.options.wait ? await waitForUsdc(client, wallet.address) : undefined
  const field = askedField(call.options)
  if (field !== undefined) {
    const value = field === 'sandbox_url' ? sandboxControlUrl(call) : wallet[field]
    if (typeof value !== 'string' || value === '')
      throw new SvcError(`${sandboxControlUrl(call)} answered a wallet without ${field}`)
    return call.out.line(value)
  }
  // A command that changes the Sandbox names the one it acted on (the wallet is created when missing).
  if (call.out.isJson) return call.out.json({ ...wallet, sandbox_url: sandboxControlUrl(call) })
  call.out.fields([
    ['sandbox', sandboxControlUrl(call)],
    ['address', wallet.address],
    ['private key', `${wallet.private_key_redacted}  ${call.out.dim('(hidden; --json shows it)')}`],
    [
      'funding',
      wallet.funding === 'started'
        ? 'started (ETH and USDC arrive in the background; --wait waits for them)'
        : 'existing',
    ],
    ['created', wallet.created_at],
    ...(balances ? balanceFields(balances) : []),
  ])
}

/** `svc sandbox-wallet get|reset`, `svc balances`, `svc faucet`: JWT plus the development environment. */
export function registerSandbox(program: Command, ctx: CliContext) {
  const wallet = program
    .command('sandbox-wallet')
    .description('your platform-managed, funded Sandbox wallet (needs a JWT)')

  addCommand(wallet, 'get', 'the wallet, created and funded if missing (the default)', { isDefault: true })
    .option('--wait', `wait until its USDC has arrived (at most ${waitMs / 1000} s)`)
    .option('--key', 'print the private key alone (`KEY=$(svc sandbox-wallet get --key)`); fails with exit code 1 or 2')
    .option('--field <name>', `print one field alone: ${walletFields.join(', ')}`)
    .action(
      action<WalletFlags>(ctx, async (call) => {
        askedField(call.options)
        const client = call.client('sandbox')
        await showWallet(call, client, await client.sandbox.wallet())
      }),
    )

  addCommand(wallet, 'reset', 'replace the wallet with a new keypair and fund it')
    .option('--wait', `wait until its USDC has arrived (at most ${waitMs / 1000} s)`)
    .option('--key', 'print the new private key alone')
    .option('--field <name>', `print one field alone: ${walletFields.join(', ')}`)
    .action(
      action<WalletFlags>(ctx, async (call) => {
        askedField(call.options)
        const client = call.client('sandbox')
        await showWallet(call, client, await client.sandbox.resetWallet())
      }),
    )

  addCommand(program, 'balances', 'ETH and USDC balances on the Sandbox chain (needs a JWT)')
    .argument('[address]', "an address (default: your Sandbox wallet's)")
    .action(
      action(ctx, async (call, address) => {
        const client = call.client('sandbox')
        const balances = await client.sandbox.balances(address ?? (await client.sandbox.wallet()).address)
        if (call.out.isJson) return call.out.json(balances)
        call.out.fields([['address', balances.address], ...balanceFields(balances)])
      }),
    )

  addCommand(program, 'faucet', 'send Sandbox ETH and USDC to an address (needs a JWT)')
    .argument('[address]', "the address (default: your Sandbox wallet's)")
    .option('--asset <asset>', `what to send: ${assets.join(', ')}`, 'all')
    .option('--amount <units>', 'whole units of the asset, e.g. 2.5 (needs --asset eth or usdc)')
    .option('--approve-permit2', 'also approve Permit2 to spend its USDC (Permit2 payments without a sponsored permit)')
    .option(
      '--network <network>',
      'fund on a twin (svc up --twin): base-sepolia or eip155:84532 (default: the Sandbox chain)',
    )
    .action(
      action<{ asset: string; amount?: string; approvePermit2?: boolean; network?: string }>(
        ctx,
        async (call, address) => {
          const { asset, amount, approvePermit2, network } = call.options
          if (!assets.includes(asset as Asset))
            throw new UsageError(`--asset must be one of ${assets.join(', ')}, got "${asset}"`)
          if (amount !== undefined && asset === 'all')
            throw new UsageError('--amount needs --asset eth or --asset usdc')
          if (amount !== undefined && !/^\d{1,30}(\.\d{1,18})?$/.test(amount))
            throw new UsageError(`--amount must be a decimal number like 2.5, got "${amount}"`)
          const client = call.client('sandbox')
          const to = address ?? (await client.sandbox.wallet()).address
          const result = await client.sandbox.faucet(to, asset as Asset, amount, { approvePermit2, network })
          if (call.out.isJson) return call.out.json({ ...result, sandbox_url: sandboxControlUrl(call) })
          const sent = [
            result.funded.eth_wei ? `${formatQuantity(result.funded.eth_wei, 18)} ETH` : undefined,
            result.funded.usdc_base ? `${formatUsdc(result.funded.usdc_base)} USDC` : undefined,
          ].filter(Boolean)
          call.out.line(
            `sent ${sent.join(' and ') || 'nothing'} to ${result.address} on ${sandboxControlUrl(call)}${result.transactions.usdc ? ` (USDC tx ${result.transactions.usdc})` : ''}`,
          )
          if (result.transactions.permit2_approval)
            call.out.line(`approved Permit2 for its USDC (tx ${result.transactions.permit2_approval})`)
          call.out.fields(balanceFields(result.balances))
        },
      ),
    )
}
