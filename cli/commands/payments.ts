import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Command } from 'commander'
import { SvcError, UsageError } from '../../core/errors.js'
import { formatUsdc } from '../../core/sandbox-usdc.js'
import type { EscrowPayment, EscrowPaymentMoved } from '../../sdk/types.js'
import { parseDecimalAmount } from '../amounts.js'
import { buyerEscrowDir } from '../config.js'
import { action, addCommand, type Call, type CliContext } from '../context.js'
import { askGatewaySvc } from '../svc-of-gateway.js'

const states = ['authorized', 'captured', 'charged', 'voided', 'refunded', 'reclaimed'] as const
const usdc = (amount: string) => formatUsdc(amount)

/** What a payment's amounts say in one column: `held 0.01`, `captured 0.006/0.01`, `voided`, `refunded 0.002`… */
export function escrowProgress(
  p: Pick<EscrowPayment, 'state' | 'authorized' | 'captured' | 'refunded' | 'capturable'>,
) {
  switch (p.state) {
    case 'authorized':
      return BigInt(p.captured) > 0n
        ? `captured ${usdc(p.captured)}/${usdc(p.authorized)}, held ${usdc(p.capturable)}`
        : `held ${usdc(p.capturable)}`
    case 'captured':
    case 'charged':
      return BigInt(p.refunded) > 0n
        ? `${p.state} ${usdc(p.captured)}/${usdc(p.authorized)}, refunded ${usdc(p.refunded)}`
        : `${p.state} ${usdc(p.captured)}/${usdc(p.authorized)}`
    case 'refunded':
      return `refunded ${usdc(p.refunded)}`
    default:
      return p.state
  }
}

/** The one line a lifecycle call prints: what moved, and where the payment is now. */
const movedLine = (what: string, moved: EscrowPaymentMoved) =>
  `${what} ${usdc(moved.transaction.amount)} USDC of ${moved.payment.id}: ${escrowProgress(moved.payment)} (${moved.transaction.transaction})`

/** A buyer's payment as `svc pay` keeps it (`<config>/buyer/escrow/<paymentInfoHash>.json`). */
type KeptPayment = {
  paymentInfoHash: `0x${string}`
  network: string
  chainId: number
  escrow: `0x${string}`
  paymentInfo: Record<string, unknown> & { authorizationExpiry: number; payer: string }
  url?: string
}

/**
 * `svc payments [list | show ID | capture ID | void ID | refund ID | reclaim]`: the escrow payments (x402
 * auth-capture) buyers made to the seller's APIs and the seller's lifecycle calls on them; `reclaim` is the buyer's:
 * it takes back what the escrow still holds of the payments `svc pay` made, once their capture deadline passed.
 */
export function registerPayments(program: Command, ctx: CliContext) {
  const payments = program
    .command('payments')
    .description('escrow payments (auth-capture): holds, captures, voids, refunds; a buyer reclaims')

  addCommand(payments, 'list', 'the escrow payments buyers made to your APIs, newest first (the default)', {
    isDefault: true,
  })
    .option('--api <id>', 'only this API')
    .option('--state <state>', `only payments in this state (${states.join(', ')})`)
    .option('--csv', 'write the payments as CSV to stdout')
    .action(
      action<{ api?: string; state?: string; csv?: boolean }>(ctx, async (call) => {
        const { api, state, csv } = call.options
        if (state !== undefined && !(states as readonly string[]).includes(state))
          throw new UsageError(`--state must be one of ${states.join(', ')}, got "${state}"`)
        const query = { api_id: api, state: state as EscrowPayment['state'] | undefined }
        if (csv) return void call.io.stdout.write(await call.client().payments.csv(query))
        const list = await call.client().payments.list(query)
        if (call.out.isJson) return call.out.json({ payments: list })
        call.out.table(
          ['PAYMENT', 'REQUEST', 'PAYER', 'MODE', 'ESCROW', 'CAPTURE BY'],
          list.map((p) => [
            p.id,
            `${p.method} ${p.path}`,
            p.payer,
            p.capture_mode ?? p.flow,
            p.old_chain ? `${escrowProgress(p)} (old chain)` : escrowProgress(p),
            new Date(p.capture_deadline * 1000).toISOString(),
          ]),
          'no escrow payments',
        )
      }),
    )

  addCommand(payments, 'show', 'one escrow payment: its amounts, deadlines and transactions')
    .argument('<payment-id>', 'the payment id (esc_…)')
    .action(
      action(ctx, async (call, id) => {
        const detail = await call.client().payments.get(id!)
        if (call.out.isJson) return call.out.json(detail)
        const p = detail.payment
        call.out.fields([
          ['payment', p.id],
          ['request', `${p.method} ${p.path}`],
          ['payer', p.payer],
          ['pay to', p.pay_to],
          ['state', escrowProgress(p)],
          ['authorized', `${usdc(p.authorized)} USDC`],
          ['captured', `${usdc(p.captured)} USDC`],
          ['voided', `${usdc(p.voided)} USDC`],
          ['refunded', `${usdc(p.refunded)} USDC`],
          ['reclaimed', `${usdc(p.reclaimed)} USDC`],
          ['capture deadline', new Date(p.capture_deadline * 1000).toISOString()],
          ['refund deadline', new Date(p.refund_deadline * 1000).toISOString()],
          ['payment info hash', p.payment_info_hash],
        ])
        call.out.line()
        call.out.table(
          ['KIND', 'AMOUNT', 'BY', 'TRANSACTION', 'AT'],
          detail.transactions.map((t) => [t.kind, usdc(t.amount), t.actor, t.transaction, t.created_at]),
          'no transactions',
        )
      }),
    )

  const moved = (call: Call<object>, what: string, answer: EscrowPaymentMoved) =>
    call.out.isJson ? call.out.json(answer) : call.out.line(movedLine(what, answer))

  addCommand(payments, 'capture', "capture a payment's hold, all of it or --amount")
    .argument('<payment-id>', 'the payment id (esc_…)')
    .option('--amount <usdc>', 'how much to capture, in USDC (default: everything held)')
    .action(
      action<{ amount?: string }>(ctx, async (call, id) => {
        const amount =
          call.options.amount === undefined ? undefined : parseDecimalAmount(call.options.amount, '--amount')
        moved(call, 'captured', await call.client().payments.capture(id!, amount === undefined ? {} : { amount }))
      }),
    )

  addCommand(payments, 'void', 'give back to the buyer what a payment still holds')
    .argument('<payment-id>', 'the payment id (esc_…)')
    .action(
      action(ctx, async (call, id) => {
        moved(call, 'voided', await call.client().payments.void(id!))
      }),
    )

  addCommand(payments, 'refund', 'refund part or all of what a payment captured, to the buyer')
    .argument('<payment-id>', 'the payment id (esc_…)')
    .requiredOption('--amount <usdc>', 'how much to refund, in USDC')
    .action(
      action<{ amount: string }>(ctx, async (call, id) => {
        const amount = parseDecimalAmount(call.options.amount, '--amount')
        moved(call, 'refunded', await call.client().payments.refund(id!, { amount }))
      }),
    )

  addCommand(payments, 'reclaim', 'as the buyer: take back what the escrow still holds after the capture deadline')
    .argument('[hash...]', 'paymentInfoHash of payments `svc pay` made (default with --all: every one kept)')
    .option('--all', 'every payment `svc pay` kept that still holds something')
    .action(
      action<{ all?: boolean }>(ctx, async (call, ...args) => {
        const hashes = (args[0] as unknown as string[] | undefined) ?? []
        if (hashes.length === 0 && !call.options.all) throw new UsageError('name a payment (its hash) or give --all')
        const privateKey = call.env.SVC_EVM_PRIVATE_KEY?.trim()
        if (!privateKey || !/^0x[0-9a-fA-F]{64}$/.test(privateKey))
          throw new UsageError(
            "`svc payments reclaim` needs SVC_EVM_PRIVATE_KEY: the buyer's private key (0x and 64 hex digits)",
          )
        const directory = buyerEscrowDir(call.env)
        const kept = new Map<string, KeptPayment>()
        if (existsSync(directory))
          for (const name of readdirSync(directory).filter((file) => file.endsWith('.json'))) {
            const payment = JSON.parse(readFileSync(join(directory, name), 'utf8')) as KeptPayment
            kept.set(payment.paymentInfoHash.toLowerCase(), payment)
          }
        const chosen = hashes.length > 0 ? hashes.map((hash) => hash.toLowerCase()) : [...kept.keys()]
        for (const hash of chosen)
          if (!kept.has(hash)) throw new UsageError(`no payment ${hash} in ${directory} (svc pay keeps them there)`)
        const [viem, accounts, buyer] = await Promise.all([
          import('viem'),
          import('../viem-keys.js'),
          import('../../core/auth-capture/buyer.js'),
        ])
        const account = accounts.privateKeyToAccount(privateKey as `0x${string}`)
        const lines: string[] = []
        const results: { hash: string; reclaimed: string; transaction: string }[] = []
        for (const hash of chosen) {
          const payment = kept.get(hash)!
          // The chain's RPC: SVC_RPC_URL, else what the svc of the paid URL says, else the svc of the CLI's settings.
          const rpcUrl =
            call.env.SVC_RPC_URL?.trim() ||
            (payment.url ? (await askGatewaySvc(payment.url, call.settings().baseUrl)).rpcUrl : undefined) ||
            (await call
              .client('public')
              .config.localDev()
              .then((config) => config.rpc_url ?? undefined)
              .catch(() => undefined))
          if (!rpcUrl) throw new SvcError('no RPC to reclaim on: give SVC_RPC_URL', { code: 'unreachable' })
          const chain = {
            id: payment.chainId,
            name: payment.network,
            nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
            rpcUrls: { default: { http: [rpcUrl] } },
          }
          const client = viem.createPublicClient({ chain, transport: viem.http(rpcUrl) })
          const [, capturable] = await client.readContract({
            address: payment.escrow,
            abi: buyer.buyerEscrowAbi,
            functionName: 'paymentState',
            args: [payment.paymentInfoHash],
          })
          if (capturable === 0n) {
            if (hashes.length > 0) throw new SvcError(`${hash}: the escrow holds nothing of it`, { code: 'conflict' })
            continue
          }
          const block = await client.getBlock({ blockTag: 'latest' })
          const from = payment.paymentInfo.authorizationExpiry
          if (block.timestamp < BigInt(from))
            throw new SvcError(
              `${hash} can be reclaimed from ${new Date(from * 1000).toISOString()} (svc time advance)`,
              { code: 'conflict' },
            )
          const wallet = viem.createWalletClient({ account, chain, transport: viem.http(rpcUrl) })
          const transaction = await wallet.writeContract({
            address: payment.escrow,
            abi: buyer.buyerEscrowAbi,
            functionName: 'reclaim',
            args: [buyer.paymentInfoArgument(payment.paymentInfo as never) as never],
          })
          const receipt = await client.waitForTransactionReceipt({ hash: transaction })
          if (receipt.status !== 'success')
            throw new SvcError(`${hash}: the reclaim reverted (${transaction})`, { code: 'chain_error' })
          results.push({ hash, reclaimed: capturable.toString(), transaction })
          lines.push(`reclaimed ${usdc(capturable.toString())} USDC of ${hash} (${transaction})`)
        }
        if (call.out.isJson) return call.out.json({ reclaimed: results })
        call.out.line(lines.length > 0 ? lines.join('\n') : 'nothing to reclaim')
      }),
    )
}
