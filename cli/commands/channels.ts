import type { Command } from 'commander'
import { SvcError, UsageError } from '../../core/errors.js'
import { formatUsdc } from '../../core/sandbox-usdc.js'
import { localFetch } from '../../sdk/local-fetch.js'
import type { Channel } from '../../sdk/types.js'
import { buyerChannelsDir } from '../config.js'
import { action, addCommand, type CliContext } from '../context.js'
import { askGatewaySvc } from '../svc-of-gateway.js'

const states = ['open', 'withdrawing', 'closed'] as const
const usdc = (amount: string) => formatUsdc(amount)

/**
 * `svc channels [list | show ID | close URL]`: the payment channels (x402 batch-settlement) buyers opened on the
 * seller's APIs, one channel with the requests it paid and its transactions, and, for a buyer, asking a seller to
 * refund what is left of a channel (the official client's cooperative refund).
 */
export function registerChannels(program: Command, ctx: CliContext) {
  const channels = program
    .command('channels')
    .description('payment channels (batch-settlement): deposits, vouchers spent, claimed, settled, refunded')

  addCommand(channels, 'list', 'the channels buyers opened on your APIs, newest first (the default)', {
    isDefault: true,
  })
    .option('--api <id>', 'only this API')
    .option('--state <state>', `only channels in this state (${states.join(', ')})`)
    .option('--csv', 'write the channels as CSV to stdout')
    .action(
      action<{ api?: string; state?: string; csv?: boolean }>(ctx, async (call) => {
        const { api, state, csv } = call.options
        if (state !== undefined && !(states as readonly string[]).includes(state))
          throw new UsageError(`--state must be one of ${states.join(', ')}, got "${state}"`)
        const query = { api_id: api, state: state as Channel['state'] | undefined }
        if (csv) return void call.io.stdout.write(await call.client().channels.csv(query))
        const list = await call.client().channels.list(query)
        if (call.out.isJson) return call.out.json({ channels: list })
        call.out.table(
          ['CHANNEL', 'PAYER', 'DEPOSITED', 'SPENT', 'CLAIMED', 'SETTLED', 'REFUNDED', 'REQUESTS', 'STATE'],
          list.map((c) => [
            `${c.channel_id.slice(0, 10)}…`,
            c.payer,
            usdc(c.deposited),
            usdc(c.spent),
            usdc(c.claimed),
            usdc(c.settled),
            usdc(c.refunded),
            c.vouchers,
            c.old_chain ? `${c.state} (old chain)` : c.state,
          ]),
          'no channels',
        )
      }),
    )

  addCommand(channels, 'show', 'one channel: its amounts, the requests it paid and its transactions')
    .argument('<channel-id>', 'the channel id (0x and 64 hex digits)')
    .action(
      action(ctx, async (call, id) => {
        const detail = await call.client().channels.get(id!)
        if (call.out.isJson) return call.out.json(detail)
        const c = detail.channel
        call.out.fields([
          ['channel', c.channel_id],
          ['payer', c.payer],
          ['pay to', c.pay_to],
          ['state', c.state],
          ['deposited', `${usdc(c.deposited)} USDC`],
          ['spent', `${usdc(c.spent)} USDC in ${c.vouchers} requests`],
          ['claimed', `${usdc(c.claimed)} USDC`],
          ['settled', `${usdc(c.settled)} USDC`],
          ['refunded', `${usdc(c.refunded)} USDC`],
          ['withdrawn', `${usdc(c.withdrawn)} USDC`],
          ['withdraw delay', `${c.withdraw_delay} s`],
        ])
        call.out.line()
        call.out.table(
          ['KIND', 'AMOUNT', 'VOUCHERS', 'TRANSACTION', 'AT'],
          detail.transactions.map((t) => [t.kind, usdc(t.amount), t.vouchers || '', t.transaction, t.created_at]),
          'no transactions',
        )
      }),
    )

  addCommand(channels, 'close', 'ask the seller of a batch-settlement URL to refund what is left of your channel')
    .argument('<url>', 'a batch-settlement route of the seller (the channel is the one `svc pay` opened with it)')
    .action(
      action(ctx, async (call, url) => {
        const privateKey = call.env.SVC_EVM_PRIVATE_KEY?.trim()
        if (!privateKey || !/^0x[0-9a-fA-F]{64}$/.test(privateKey))
          throw new UsageError(
            "`svc channels close` needs SVC_EVM_PRIVATE_KEY: the buyer's private key (0x and 64 hex digits)",
          )
        if (!URL.canParse(url!)) throw new UsageError(`not a URL: "${url}"`)
        const svc = await askGatewaySvc(url!, call.settings().baseUrl)
        const [{ BatchSettlementEvmScheme }, { FileClientChannelStorage }, { toClientEvmSigner }, viem, accounts] =
          await Promise.all([
            import('@x402/evm/batch-settlement/client'),
            import('@x402/evm/batch-settlement/client/file-storage'),
            import('@x402/evm'),
            import('viem'),
            import('../viem-keys.js'),
          ])
        const account = accounts.privateKeyToAccount(privateKey as `0x${string}`)
        const signer = svc.rpcUrl
          ? toClientEvmSigner(account, viem.createPublicClient({ transport: viem.http(svc.rpcUrl) }))
          : account
        const scheme = new BatchSettlementEvmScheme(signer, {
          storage: new FileClientChannelStorage({ directory: buyerChannelsDir(call.env) }),
        })
        let refund: Awaited<ReturnType<typeof scheme.refund>>
        try {
          refund = await scheme.refund(url!, { fetch: localFetch })
        } catch (error) {
          throw new SvcError(`no refund: ${(error as Error).message.split('\n')[0]}`, {
            cause: error,
            code: 'refund_refused',
          })
        }
        if (call.out.isJson) return call.out.json(refund)
        call.out.line(`refunded: tx ${refund.transaction} on ${refund.network}`)
      }),
    )
}
