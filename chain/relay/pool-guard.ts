import { createAnvilRpc } from './anvil-rpc.js'
import { keccak256, serializeTransaction, type Hex, type Signature, type TransactionSerializable } from 'viem'

export type PoolGuardOptions = {
  /** How often Anvil's pool is looked at (one `txpool_status` call when it holds nothing queued). @defaultValue 200 */
  intervalMs?: number | undefined
  /** Says what it re-queued. @defaultValue nothing is said */
  log?: ((message: string) => void) | undefined
}

/** `stop()`: the guard's Anvil is stopped or gone; a look at the pool under way sends nothing more. */
export type PoolGuard = { stop(): void }

/** The longest a call of the guard may take. */
const rpcTimeoutMs = 5_000

type RpcTransaction = Record<string, string | null | undefined | unknown[]> & { hash: Hex; nonce: Hex; from: Hex }
type PoolContent = {
  pending: Record<string, Record<string, RpcTransaction>>
  queued: Record<string, Record<string, RpcTransaction>>
}

/**
 * Works around foundry-rs/foundry#10122 (Anvil 1.7.1 included): with automine, a transaction that arrives while the
 * one before it (same sender, nonce − 1) is being mined can be checked against the chain before that block and put
 * in the pool after it, waiting for a nonce that is already mined. It stays queued for ever, and every later
 * transaction of its sender with it. Interval and mixed mining do not free it (they mine ready transactions only).
 *
 * The guard looks at the pool every `intervalMs`. A sender whose lowest queued nonce is the chain's next nonce for it,
 * seen so twice in a row (the same transaction), is stuck: its transactions are taken out of the pool
 * (`anvil_removePoolTransactions`) and sent again, signed as they were, in nonce order, so Anvil judges them afresh.
 * Only transactions whose re-encoding gives back their own hash are touched (impersonated ones are left alone).
 */
export function startPoolGuard(rpcUrl: string, options: PoolGuardOptions = {}): PoolGuard {
  const { intervalMs = 200, log = () => {} } = options
  // Bounded: a call that never returns would leave the guard `running` for ever, and stuck transactions with it.
  const rpc = createAnvilRpc(rpcUrl, { timeoutMs: rpcTimeoutMs })
  /** sender → hash of its lowest queued transaction, when that nonce is the chain's next one. */
  let suspects = new Map<string, Hex>()
  let running = false
  let stopped = false

  async function check() {
    const status = await rpc<{ queued: Hex }>('txpool_status')
    if (Number(status.queued) === 0) return void (suspects = new Map())
    const content = await rpc<PoolContent>('txpool_content')
    const seen = new Map<string, Hex>()
    for (const [sender, queued] of Object.entries(content.queued)) {
      const lowest = Object.values(queued).sort((a, b) => Number(a.nonce) - Number(b.nonce))[0]
      if (!lowest) continue
      const next = Number(await rpc<Hex>('eth_getTransactionCount', [sender, 'latest']))
      if (Number(lowest.nonce) !== next) continue
      if (stopped) return
      if (suspects.get(sender) === lowest.hash)
        await requeue(sender, [...Object.values(content.pending[sender] ?? {}), ...Object.values(queued)])
      else seen.set(sender, lowest.hash)
    }
    suspects = seen
  }

  async function requeue(sender: string, transactions: RpcTransaction[]) {
    const raws = transactions.sort((a, b) => Number(a.nonce) - Number(b.nonce)).map((tx) => ({ tx, raw: reencode(tx) }))
    if (raws.some(({ tx, raw }) => raw === undefined || keccak256(raw) !== tx.hash)) return
    // A guard whose Anvil exited meanwhile stops here: a new Anvil may listen on the same URL, and the transactions
    // read from the old one's pool must never reach it (their nonces are the old chain's).
    if (stopped) return
    await rpc('anvil_removePoolTransactions', [sender])
    for (const { raw } of raws) {
      if (stopped) return
      await rpc('eth_sendRawTransaction', [raw]).catch(() => {})
    }
    log(
      `svc: Anvil left ${raws.length} transaction(s) of ${sender} unmined (foundry-rs/foundry#10122): sent them again`,
    )
  }

  const timer = setInterval(() => {
    if (running || stopped) return
    running = true
    check()
      .catch(() => {})
      .finally(() => (running = false))
  }, intervalMs)
  timer.unref()
  return {
    stop() {
      stopped = true
      clearInterval(timer)
    },
  }
}

/** The signed transaction as it was sent, from its JSON-RPC form; undefined for a type it does not know. */
function reencode(tx: RpcTransaction): Hex | undefined {
  const big = (key: string) => (tx[key] === undefined || tx[key] === null ? undefined : BigInt(tx[key] as string))
  const type = Number(tx.type ?? '0x0')
  const common = {
    chainId: tx.chainId ? Number(tx.chainId) : undefined,
    nonce: Number(tx.nonce),
    gas: big('gas'),
    to: (tx.to ?? null) as Hex | null,
    value: big('value'),
    data: tx.input as Hex,
  }
  const signature: Signature = {
    r: tx.r as Hex,
    s: tx.s as Hex,
    ...(type === 0 ? { v: big('v')! } : { yParity: Number(tx.yParity ?? tx.v) }),
  }
  const accessList = (tx.accessList ?? []) as TransactionSerializable['accessList']
  let serializable: TransactionSerializable
  if (type === 0) serializable = { ...common, type: 'legacy', gasPrice: big('gasPrice') }
  else if (type === 1)
    serializable = { ...common, type: 'eip2930', gasPrice: big('gasPrice'), accessList, chainId: Number(tx.chainId) }
  else if (type === 2)
    serializable = {
      ...common,
      type: 'eip1559',
      maxFeePerGas: big('maxFeePerGas'),
      maxPriorityFeePerGas: big('maxPriorityFeePerGas'),
      accessList,
      chainId: Number(tx.chainId),
    }
  else return undefined
  try {
    return serializeTransaction(serializable, signature)
  } catch {
    return undefined
  }
}
