import { Router, type RequestHandler } from 'express'
import type { Address, Hex } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { balancesSchema, faucetSchema } from '../../chain/manager.js'
import {
  findSandboxWallet,
  insertSandboxWalletIfAbsent,
  replaceSandboxWallet,
  type SandboxWalletRow,
} from '../db/index.js'
import { ForbiddenError } from '../../core/errors.js'
import { parseBody } from '../../core/http.js'
import { nowIso } from '../ids.js'
import { decryptSecret, encryptSecret } from '../data-dir/index.js'
import { requireSandboxChain } from '../sandbox/index.js'
import { guard, principalOf } from './context.js'
import type { ServerDeps } from '../deps.js'

/** `0x1234…abcd`: the first 6 characters (`0x` and 4 hex digits), an ellipsis, the last 4 hex digits. */
export function redactPrivateKey(privateKey: string): string {
  return `${privateKey.slice(0, 6)}…${privateKey.slice(-4)}`
}

type Funding = 'started' | 'existing'

/** The Sandbox wallet and the chain helpers: JWT plus the development environment; 503 without a chain. */
export function createSandboxRoutes(deps: ServerDeps): Router {
  const router = Router()
  const log = deps.log ?? ((message: string) => console.error(message))
  const read = guard({ jwtOnly: true, development: true })
  const write = guard({ jwtOnly: true, development: true, write: true })

  // The wallets' keys are svc's: they answer while the chain restarts (funding then fails in the background, logged).
  const chainRunning: RequestHandler = (_req, _res, next) => {
    requireSandboxChain(deps, { whileRestarting: true })
    next()
  }
  const chain = () => requireSandboxChain(deps, { whileRestarting: true })

  /** Funds a new wallet in the background: the answer does not wait, and a failure is logged, never thrown. */
  function startFunding(address: Address) {
    chain()
      .manager.fund(address, 'all')
      .then(
        () => log(`sandbox wallet ${address} funded`),
        (error: unknown) =>
          log(`funding sandbox wallet ${address} failed: ${(error as Error)?.message ?? String(error)}`),
      )
  }

  function newKeypair(userId: string): SandboxWalletRow {
    const privateKey = generatePrivateKey()
    return {
      user_id: userId,
      address: privateKeyToAccount(privateKey).address,
      encrypted_private_key: encryptSecret(deps.secrets.walletKey, privateKey),
      created_at: nowIso(),
    }
  }

  function walletBody(row: SandboxWalletRow, funding: Funding) {
    const privateKey = decryptSecret(deps.secrets.walletKey, row.encrypted_private_key) as Hex
    return {
      address: row.address,
      private_key: privateKey,
      private_key_redacted: redactPrivateKey(privateKey),
      funding,
      created_at: row.created_at,
    }
  }

  router.get('/sandbox-wallet', read, chainRunning, async (req, res) => {
    const { user } = principalOf(req)
    const existing = await findSandboxWallet(deps.db, user.id)
    if (existing) return void res.json(walletBody(existing, 'existing'))
    // Creating and funding a wallet is a write: an unverified account gets 403 before any wallet exists.
    if (!user.email_verified_at) throw new ForbiddenError('email verification required')
    // Two first GETs racing: the primary key (user_id) keeps one row; only the request whose row won funds it.
    const candidate = newKeypair(user.id)
    await insertSandboxWalletIfAbsent(deps.db, candidate)
    const row = await findSandboxWallet(deps.db, user.id)
    if (!row) throw new Error('the sandbox wallet vanished right after it was written')
    const created = row.address === candidate.address
    if (created) startFunding(row.address as Address)
    res.json(walletBody(row, created ? 'started' : 'existing'))
  })

  router.post('/sandbox-wallet/reset', write, chainRunning, async (req, res) => {
    const { user } = principalOf(req)
    const row = newKeypair(user.id)
    await replaceSandboxWallet(deps.db, row)
    startFunding(row.address as Address)
    res.json(walletBody(row, 'started'))
  })

  router.post('/dev/balances', read, chainRunning, async (req, res) => {
    const { address } = parseBody(balancesSchema, req.body)
    res.json({ address, ...(await requireSandboxChain(deps).manager.balances(address)) })
  })

  router.post('/dev/faucet', write, chainRunning, async (req, res) => {
    const { address, asset, amount, approve_permit2, approve_escrow_operator, network } = parseBody(
      faucetSchema,
      req.body,
    )
    // `network` names a twin's chain (chain/twin.ts) to fund there; none, the Sandbox chain.
    const manager = requireSandboxChain(deps).manager.faucetOf(network)
    const approvals = { approvePermit2: approve_permit2, approveEscrowOperator: approve_escrow_operator }
    res.json(await manager.fund(address, asset, amount, approvals))
  })

  return router
}
