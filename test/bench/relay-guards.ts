/**
 * Which of the three foundry-rs/foundry#10122 guards the tuned relay still needs under `--no-mining` (the batch miner):
 * one transaction in flight per relayer (chain/relay/relayer.ts), the pool guard (chain/relay/miner.ts) and the
 * miner's sweep of the pool (chain/relay/miner.ts; its scenarios ran before the sweep became fixed, see the commit).
 * Each scenario sends the same self-transfers to a fresh Anvil, with a guard taken away, and counts what the pool
 * guard had to send again and what was never mined (no receipt within 5 s). The minter's path (raw sends, 16 in
 * flight) left nothing unmined here, yet `npm run bench -- --only issue_11` with the pool guard off under
 * `--no-mining` stalled in its chain-limit step (the same shape with `transferWithAuthorization` on svc's grown
 * chain, where blocks take longer): a clean run here does not prove a guard can go.
 *
 * `npx tsx test/bench/relay-guards.ts [transactions]` (`RELAY_GUARDS=name,…` for some scenarios) prints one JSON line per scenario. Figures are in the commit that
 * added it and in the comments of the guards.
 */
import '../../core/polyfill.js'
import { createPublicClient, type PublicClient } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { startAnvil } from '../../chain/anvil/anvil.js'
import { devAccountKeys, relayerPoolKeys } from '../../chain/constants.js'
import { startBatchMiner } from '../../chain/relay/miner.js'
import { createRpcTransport } from '../../chain/relay/anvil-rpc.js'
import { createTxSender } from '../../chain/relay/tx-sender.js'
import { sandboxChain } from '../../chain/viem-chain.js'
import { sandboxChainId } from '../../core/sandbox-usdc.js'

type Scenario = {
  name: string
  /** Relayers sending, and transactions each keeps in flight. */
  senders: number
  inFlight: number
  /** The relayer's path: `eth_sendTransaction` and a `mine()` call; else signed here, sent raw, no `mine()` (the minter's). */
  relayerPath: boolean
  poolGuard: boolean
}

const total = Number(process.argv[2] ?? 2_000)
const keys = [devAccountKeys.relayer, ...relayerPoolKeys]

const scenarios: Scenario[] = [
  { name: 'tuned as shipped', senders: 16, inFlight: 1, relayerPath: true, poolGuard: false },
  { name: '16 in flight from one relayer', senders: 1, inFlight: 16, relayerPath: true, poolGuard: false },
  {
    name: '16 in flight from one relayer with the pool guard',
    senders: 1,
    inFlight: 16,
    relayerPath: true,
    poolGuard: true,
  },
  { name: 'minter path', senders: 1, inFlight: 16, relayerPath: false, poolGuard: false },
]

async function run(scenario: Scenario) {
  let resent = 0
  // Anvil with --no-mining, and a batch miner of this script's own (startAnvil's would start the pool guard's choice too).
  const anvil = await startAnvil({
    mining: 'auto',
    extraArgs: { noMining: true },
    poolGuard: scenario.poolGuard,
    log: () => void resent++,
  })
  const miner = await startBatchMiner(anvil.rpcUrl)
  const client = createPublicClient({
    chain: sandboxChain(anvil.rpcUrl),
    transport: createRpcTransport(anvil.rpcUrl),
  }) as PublicClient
  const senders = keys.slice(0, scenario.senders).map((key) =>
    createTxSender({
      client,
      account: privateKeyToAccount(key),
      chainId: sandboxChainId,
      mine: scenario.relayerPath ? (sent) => miner.mine(sent) : undefined,
      receiptTimeoutMs: 5_000,
    }),
  )
  let next = 0
  let mined = 0
  let unmined = 0
  const started = performance.now()
  await Promise.all(
    senders.flatMap((sender) =>
      Array.from({ length: scenario.inFlight }, async () => {
        while (next < total) {
          next++
          try {
            const hash = await sender.send({ to: sender.address, value: 1n, gas: 21_000n })
            await sender.waitForReceipt(hash, 5_000)
            mined++
          } catch {
            unmined++
          }
        }
      }),
    ),
  )
  const seconds = (performance.now() - started) / 1_000
  await miner.stop()
  await anvil.stop()
  return { ...scenario, total, mined, unmined, resent_by_guard: resent, tx_per_s: Math.round(mined / seconds) }
}

/** `RELAY_GUARDS=name,name` runs those scenarios only. */
const only = process.env.RELAY_GUARDS?.split(',')
for (const scenario of scenarios.filter((s) => !only || only.includes(s.name)))
  process.stdout.write(`${JSON.stringify(await run(scenario))}\n`)
process.exit(0)
