/**
 * The reference stack's facilitator, run as its own Node process (`node --import tsx reference-facilitator.ts`):
 * the official `x402Facilitator` with `@x402/evm`'s exact scheme on a signer made the documented way
 * (`toFacilitatorEvmSigner` over a viem wallet client with a nonce manager and 100 ms polling), served over HTTP
 * (`GET /supported`, `POST /verify`, `POST /settle`), on an Anvil of its own with Anvil's default settings (the
 * same USDC contract as svc's, installed by svc's chain kit, since the official stack brings no token).
 * `POST /fund {address, amount}` mints USDC for the bench's buyers. Prints one ready line; SIGTERM stops it.
 *
 * Its Anvil has svc's pool guard (chain/relay/miner.ts, startPoolGuard), not a setting of the official stack: without
 * it a run hangs for good when automine leaves settlements unmined (foundry-rs/foundry#10122: 64 transactions of the
 * facilitator queued behind nonce 499 in one run). `GET /unstuck` says how often the guard had to step in; each time
 * shows in the reference's slowest payments.
 */
import '../../core/polyfill.js'
import { x402Facilitator } from '@x402/core/facilitator'
import type { PaymentPayload, PaymentRequirements } from '@x402/core/types'
import { toFacilitatorEvmSigner } from '@x402/evm'
import { ExactEvmScheme } from '@x402/evm/exact/facilitator'
import express from 'express'
import { createWalletClient, http, nonceManager, publicActions, type Address } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { startChain } from '../../chain/start-chain.js'
import { devAccountKeys } from '../../chain/constants.js'
import { listen } from '../../core/http.js'
import { plainAnvil } from './plain-anvil.js'

let unstuck = 0
const chain = await startChain({ ...plainAnvil, poolGuard: true, log: () => void unstuck++, watchdog: true })
const account = privateKeyToAccount(devAccountKeys.relayer, { nonceManager })
const client = createWalletClient({
  account,
  chain: chain.chain,
  transport: http(chain.rpcUrl),
  pollingInterval: 100,
}).extend(publicActions)
// `toFacilitatorEvmSigner` reads the signer's address from `client.address`.
const facilitator = new x402Facilitator().register(
  chain.network,
  new ExactEvmScheme(toFacilitatorEvmSigner(Object.assign(client, { address: account.address }) as never)),
)

const app = express()
app.use(express.json())
app.get('/supported', (_req, res) => void res.json(facilitator.getSupported()))
app.post('/verify', async (req, res) => {
  const { paymentPayload, paymentRequirements } = req.body as {
    paymentPayload: PaymentPayload
    paymentRequirements: PaymentRequirements
  }
  res.json(await facilitator.verify(paymentPayload, paymentRequirements))
})
app.post('/settle', async (req, res) => {
  const { paymentPayload, paymentRequirements } = req.body as {
    paymentPayload: PaymentPayload
    paymentRequirements: PaymentRequirements
  }
  res.json(await facilitator.settle(paymentPayload, paymentRequirements))
})
app.get('/unstuck', (_req, res) => void res.json({ unstuck }))
app.post('/fund', async (req, res) => {
  const { address, amount } = req.body as { address: Address; amount: string }
  res.json(await chain.usdcFunder.fund(address, BigInt(amount)))
})
app.use(
  (error: Error, _req: express.Request, res: express.Response, _next: express.NextFunction) =>
    void res.status(500).json({ error: error.message }),
)

const listening = await listen(app)
process.stdout.write(
  `${JSON.stringify({ facilitator_url: listening.url, rpc_url: chain.rpcUrl, network: chain.network, anvil_pid: chain.pid, usdc: chain.usdc })}\n`,
)
process.once('SIGTERM', () => {
  Promise.all([listening.close(), chain.stop()]).finally(() => process.exit(0))
})
