import { createHash } from 'node:crypto'
import { x402Facilitator } from '@x402/core/facilitator'
import type { Network, PaymentPayload, PaymentRequirements, SettleResponse, VerifyResponse } from '@x402/core/types'
import { ExactEvmScheme } from '@x402/evm/exact/facilitator'
import { ExactEvmSchemeV1 } from '@x402/evm/exact/v1/facilitator'
import { UptoEvmScheme } from '@x402/evm/upto/facilitator'
import { EIP2612_GAS_SPONSORING } from '@x402/extensions'
import { BAZAAR } from '@x402/extensions/bazaar'
import type { Express, Response } from 'express'
import { LRUCache } from 'lru-cache'
import { canonicalJson } from '../../core/canonical-json.js'
import { sandboxChainRestarting } from '../../core/errors.js'
import { machineClock, type Clock } from '../../core/clock.js'
import { authorizationWindowReason, offsetExplains } from './authorization-window.js'
import { authorizationFields } from '../../core/eip3009-authorization.js'
import { createErrorHandler, createJsonApp, cutText, errorMessageLimit, notFoundHandler } from '../../core/http.js'
import type { SandboxChain } from '../sandbox-chain.js'
import { evmSchemes } from './exact-evm-shape.js'
import { parseFacilitatorRequest } from './request.js'
import { createBazaarCatalog, type BazaarCatalog } from './bazaar-catalog.js'
import { createBazaarRoutes } from './bazaar-routes.js'
import { injectedSettleAnswer, injectedVerifyAnswer } from '../faults/answers.js'
import type { FaultBook } from '../faults/book.js'
import { explainPermit2Refusal } from '../permit2/diagnosis.js'
import { checkSponsoredApproval } from './erc20-approval-checks.js'
import { createApprovalSponsoring } from './erc20-approval-sponsor.js'
import { createRelayerSigner } from '../relay/relayer.js'
import { isRelayerNonceMessage } from '../relay/tx-sender.js'
import { createViemRelayerSigner, type RelaySigner } from '../relay/viem-signer.js'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import type { Address, LocalAccount } from 'viem'
import { batchActionOf, createBatchSettlementScheme, depositWindowReason, isChannelAction } from './batch-settlement.js'
import { createChannelActionJournal, type ChannelActionJournal } from './channel-actions.js'

/**
 * How many settled payloads the facilitator remembers for idempotent answers (a resource server that retries a
 * settlement it already got gets the same transaction). About 1.2 KB of heap each: a sandbox that runs for hours must
 * not hold every payment it ever settled. A payload settled longer ago than that is refused by the chain itself (its
 * authorization is used).
 */
const settledMemory = 10_000

/** The Retry-After (seconds) of a 503 while the chain restarts (a restart takes about half a second). */
const chainRestartRetryAfterSeconds = 1

export type SandboxFacilitator = {
  /** The official x402 facilitator with the exact and upto EVM schemes on the sandbox network only. */
  facilitator: x402Facilitator
  verify(payload: PaymentPayload, requirements: PaymentRequirements): Promise<VerifyResponse>
  /**
   * Settles once: the same payload and requirements settled again (or concurrently) answer the first
   * transaction and send nothing. Failed settlements are forgotten, so a payer can fix the cause and retry.
   */
  settle(payload: PaymentPayload, requirements: PaymentRequirements): Promise<SettleResponse>
  /** {@link verify}, or 'chain-down' when the chain could not judge the payment (it is restarting, its RPC is gone). */
  judgeVerify(payload: PaymentPayload, requirements: PaymentRequirements): Promise<VerifyResponse | 'chain-down'>
  /** {@link settle}, or 'chain-down' when the chain could not judge the payment. */
  judgeSettle(payload: PaymentPayload, requirements: PaymentRequirements): Promise<SettleResponse | 'chain-down'>
  /** The bazaar catalog of the resources it settled (`GET /discovery/resources`). */
  catalog: BazaarCatalog
  app: Express
  /** Forgets the relayer's nonce and memory and the settled answers (after the chain was reverted to a snapshot). */
  reset(): void
  /** The batch-settlement receiver authorizer's address (`/supported`'s `extra.receiverAuthorizer`). */
  receiverAuthorizer: Address
  /** The batch-settlement actions it sent (deposits, claims, settles, refunds), journaled for crash recovery. */
  channelActions: ChannelActionJournal
}

export type SandboxFacilitatorOptions = {
  log?: ((message: string) => void) | undefined
  /**
   * svc's clock. While `svc time advance` has moved it, an authorization's validAfter/validBefore is judged by it
   * (the scheme judges by the machine's clock). @defaultValue the machine's clock
   */
  clock?: Clock | undefined
  /**
   * Faults injected for every API (`svc fault add verify|settle` without `--api`): a verify fault refuses before
   * anything is simulated, a settle fault waits and/or refuses without sending a transaction. @defaultValue none
   */
  faults?: FaultBook | undefined
  /** The bazaar catalog; svc's server moves it to its database. @defaultValue one in memory */
  catalog?: BazaarCatalog | undefined
  /**
   * Twins of testnets (chain/twin.ts) it settles on too: v2 exact and upto on each one's CAIP-2 network, and v1 exact
   * on its v1 name through `@x402/evm`'s own v1 scheme. @defaultValue none
   */
  twins?: readonly SandboxChain[] | undefined
  /**
   * The batch-settlement scheme's receiver authorizer: it signs the claims and refunds of channels that name its
   * address. svc gives the install's (server/data-dir/secrets.ts). @defaultValue a new key for this process
   */
  receiverAuthorizer?: LocalAccount | undefined
}

/** A chain the facilitator settles on, with its own relayer signer. */
type Settling = { chain: SandboxChain; signer: RelaySigner }

/**
 * The development x402 facilitator: `x402Facilitator` + `@x402/evm`'s exact scheme (EIP-3009, and Permit2 through
 * x402's exact proxy, with the `eip2612GasSponsoring` and `erc20ApprovalGasSponsoring` extensions) and upto scheme
 * (Permit2 through x402's upto proxy),
 * relaying from an Anvil dev account, served as `GET /supported`, `POST /verify`, `POST /settle`.
 */
export function createFacilitator(chain: SandboxChain, options: SandboxFacilitatorOptions = {}): SandboxFacilitator {
  const { clock = machineClock, faults, twins = [], catalog = createBazaarCatalog({ log: options.log }) } = options
  const receiverAuthorizer = options.receiverAuthorizer ?? privateKeyToAccount(generatePrivateKey())
  const channelActions = createChannelActionJournal({ log: options.log })
  const signerOf = (on: SandboxChain) => (on.relay === 'viem' ? createViemRelayerSigner(on) : createRelayerSigner(on))
  const sandbox: Settling = { chain, signer: signerOf(chain) }
  const settling = [sandbox, ...twins.map((twin) => ({ chain: twin, signer: signerOf(twin) }))]
  /** The chain of a v2 network or a v1 name (undefined: a network it does not settle on). */
  const byNetwork = new Map<string, Settling>()
  const facilitator = new x402Facilitator()
    .registerExtension(EIP2612_GAS_SPONSORING)
    .registerExtension(BAZAAR)
    // The bazaar catalog takes what a settled payment declares. On settle only: a verify is followed by its settle
    // (x402's own e2e facilitator records on both, which judged and wrote every paid resource twice), and a verified
    // payment that is never settled (its upstream failed) did not buy the resource the listing would advertise.
    .onAfterSettle(async ({ paymentPayload, requirements, result }) => {
      if (result.success) catalog.record(paymentPayload, requirements)
    })
    // The Sandbox chain's relayers send a sponsored approval (a twin's payment carrying one is refused at verify:
    // the approval is checked against the Sandbox chain's id).
    .registerExtension(createApprovalSponsoring(chain, sandbox.signer))
  for (const on of settling) {
    byNetwork.set(`2:${on.chain.network}`, on)
    facilitator
      .register(on.chain.network, new ExactEvmScheme(on.signer, { simulateInSettle: true }))
      .register(on.chain.network, new UptoEvmScheme(on.signer))
      .register(on.chain.network, createBatchSettlementScheme(on.signer, on.chain.client, receiverAuthorizer))
    if (on.chain.twin) {
      byNetwork.set(`1:${on.chain.twin.v1Network}`, on)
      facilitator.registerV1(
        on.chain.twin.v1Network as Network,
        new ExactEvmSchemeV1(on.signer, { simulateInSettle: true }),
      )
    }
  }
  const settlingFor = (requirements: PaymentRequirements, x402Version: number) =>
    byNetwork.get(`${x402Version}:${requirements.network}`)
  /**
   * Payloads whose sponsored approval passed svc's checks at verify, with the amount it was judged for, so that their
   * settle does not judge it again (its static checks cannot change; its chain checks, fee and nonce, are asked again
   * right before the approval's gas is sent, erc20-approval-sponsor.ts). Keyed by the object: svc's gateway hands the
   * facilitator the same payload to verify and to settle; a settle without that verify (`POST /settle`, another
   * object) is checked in full. A smaller amount at settle (upto's actual charge) keeps the verdict; a larger does not.
   */
  const approvalsChecked = new WeakMap<PaymentPayload, bigint>()
  const approvalCheckedFor = (payload: PaymentPayload, requirements: PaymentRequirements) => {
    const amount = approvalsChecked.get(payload)
    return amount !== undefined && BigInt(requirements.amount) <= amount
  }
  // Least recently asked first out once full (lru-cache); a pending settlement is kept like a settled one.
  const settlements = new LRUCache<string, Promise<SettleResponse>>({ max: settledMemory })

  function reset() {
    for (const on of settling) on.signer.reset()
    // Transactions of the previous chain (or of the reverted blocks) do not exist any more.
    settlements.clear()
  }
  for (const on of settling) {
    on.chain.on('restart', () => {
      on.signer.reset()
      settlements.clear()
    })
    // The same chain on a new process: its transactions stand, only pending nonces are forgotten.
    on.chain.on('reload', () => on.signer.reset())
  }

  /** An authorization outside its window by svc's clock, when time travel moved it (otherwise the scheme judges). */
  const outsideWindow = (payload: PaymentPayload) => {
    if (clock.offsetMs === 0) return undefined
    const reason =
      authorizationWindowReason(payload.payload, clock.nowSeconds()) ?? depositWindowReason(payload, clock.nowSeconds())
    return reason && { reason, message: offsetExplains(payload, clock) }
  }

  function unsupported(requirements: PaymentRequirements, x402Version: number): string | undefined {
    if (x402Version !== 2 && x402Version !== 1) return 'invalid_x402_version'
    if (!settlingFor(requirements, x402Version)) return 'invalid_network'
    // v1 has the exact scheme only.
    const schemes: readonly string[] = x402Version === 1 ? ['exact'] : [...evmSchemes, 'batch-settlement']
    if (!schemes.includes(requirements.scheme)) return 'unsupported_scheme'
    return undefined
  }

  async function verify(payload: PaymentPayload, requirements: PaymentRequirements): Promise<VerifyResponse> {
    const reason = unsupported(requirements, payload.x402Version)
    if (reason) return { isValid: false, invalidReason: reason, payer: authorizationFields(payload.payload).from }
    const late = outsideWindow(payload)
    if (late)
      return {
        isValid: false,
        invalidReason: late.reason,
        ...(late.message ? { invalidMessage: late.message } : {}),
        payer: authorizationFields(payload.payload).from,
      }
    // The transfer's simulation starts now, beside the scheme's signature recovery (chain/relay/simulation-prefetch.ts).
    const on = settlingFor(requirements, payload.x402Version)!
    if (payload.x402Version === 2 && !batchActionOf(payload)) on.signer.prefetch.start(payload, requirements)
    const response = await explainPermit2Refusal(
      on.chain.client,
      payload,
      await facilitator.verify(payload, requirements),
    )
    if (response.isValid && payload.x402Version === 2) {
      const refused = await checkSponsoredApproval(chain.client, chain.chainId, payload, requirements)
      if (refused)
        return { isValid: false, invalidReason: refused.reason, invalidMessage: refused.message, payer: response.payer }
      approvalsChecked.set(payload, BigInt(requirements.amount))
    }
    return response.invalidMessage ? { ...response, invalidMessage: condense(response.invalidMessage) } : response
  }

  function settle(payload: PaymentPayload, requirements: PaymentRequirements): Promise<SettleResponse> {
    const reason = unsupported(requirements, payload.x402Version)
    if (reason)
      return Promise.resolve({
        success: false,
        errorReason: reason,
        transaction: '',
        network: requirements.network,
        payer: authorizationFields(payload.payload).from,
      })
    const late = outsideWindow(payload)
    if (late)
      return Promise.resolve({
        success: false,
        errorReason: late.reason,
        ...(late.message ? { errorMessage: late.message } : {}),
        transaction: '',
        network: requirements.network,
        payer: authorizationFields(payload.payload).from,
      })
    const on = settlingFor(requirements, payload.x402Version)!
    const send = () =>
      channelActions.run(payload, requirements, on.chain, () => facilitator.settle(payload, requirements))
    // A seller's claim, settle or refund is a new action each time: the memory of settled payloads does not answer it.
    if (isChannelAction(payload))
      return send().then((response) =>
        response.errorMessage ? { ...response, errorMessage: condense(response.errorMessage) } : response,
      )
    const key = settlementKey(payload, requirements)
    const existing = settlements.get(key)
    if (existing) return existing
    // A sponsored approval is checked before anything is sent (the buyer's gas, the approval itself), unless this
    // payload's verify just did.
    const pending = (
      approvalCheckedFor(payload, requirements)
        ? Promise.resolve(undefined)
        : checkSponsoredApproval(chain.client, chain.chainId, payload, requirements)
    )
      .then((refused) =>
        refused
          ? {
              success: false,
              errorReason: refused.reason,
              errorMessage: refused.message,
              transaction: '',
              network: requirements.network,
              payer: authorizationFields(payload.payload).from,
            }
          : send(),
      )
      .then(
        (response) => {
          if (response.success) return response
          settlements.delete(key)
          return response.errorMessage ? { ...response, errorMessage: condense(response.errorMessage) } : response
        },
        (error) => {
          settlements.delete(key)
          throw error
        },
      )
    settlements.set(key, pending)
    return pending
  }

  /**
   * Whether the chain cannot judge a payment now: it is restarting, or its RPC does not answer (Anvil died and its
   * exit was not seen yet). Asked before a payment is judged and again when it was refused or failed.
   */
  const chainDown = async (on: SandboxChain) =>
    on.restarting ||
    (await on.client.getChainId().then(
      () => false,
      () => true,
    ))
  /** The facilitator's answer, or a 503 with Retry-After when the chain could not judge the payment. */
  async function judged<Answer>(
    requirements: PaymentRequirements,
    x402Version: number,
    judge: () => Promise<Answer>,
    accepted: (answer: Answer) => boolean,
  ): Promise<Answer | 'chain-down'> {
    // The chain the payment settles on (the Sandbox chain for one it refuses anyway).
    const on = (settlingFor(requirements, x402Version) ?? sandbox).chain
    if (on.restarting) return 'chain-down'
    try {
      const answer = await judge()
      if (accepted(answer) || !(await chainDown(on))) return answer
    } catch (error) {
      if (!(await chainDown(on))) throw error
    }
    return 'chain-down'
  }
  const judgeVerify = async (payload: PaymentPayload, requirements: PaymentRequirements) => {
    const fault = await faults?.take('verify')
    if (fault) return injectedVerifyAnswer(fault, payload)
    return judged(
      requirements,
      payload.x402Version,
      () => verify(payload, requirements),
      (verified) => verified.isValid,
    )
  }
  const judgeSettle = async (payload: PaymentPayload, requirements: PaymentRequirements) => {
    const real = async () => {
      const answer = await judged(
        requirements,
        payload.x402Version,
        () => settle(payload, requirements),
        (settled) => settled.success,
      )
      // The relayer's own nonce was stale (after a chain restart): not the buyer's fault. Its nonces are read again and
      // the buyer told to retry (503), nothing was sent (issue 21, minor).
      if (answer === 'chain-down' || answer.success || !isRelayerNonceMessage(answer.errorMessage)) return answer
      settlingFor(requirements, payload.x402Version)?.signer.reset()
      return 'chain-down' as const
    }
    const fault = await faults?.take('settle')
    return fault ? injectedSettleAnswer(fault, payload, requirements, real) : real()
  }

  const app = createJsonApp()
  app.get('/health', (_req, res) => void res.json({ ok: true, network: chain.network, generation: chain.generation }))
  app.get('/supported', (_req, res) => void res.json(facilitator.getSupported()))
  /** A 503 with Retry-After; `body` keeps the verdict's shape, so x402's client raises a Verify/SettleError (status 503). */
  const unavailable = (res: Response, body: object) =>
    void res
      .status(503)
      .set('retry-after', String(chainRestartRetryAfterSeconds))
      .json({ error: sandboxChainRestarting, ...body })

  app.post('/verify', async (req, res) => {
    const parsed = parseFacilitatorRequest(req.body)
    if ('error' in parsed)
      return void res
        .status(400)
        .json({ error: parsed.error, isValid: false, invalidReason: parsed.reason, invalidMessage: parsed.error })
    const answer = await judgeVerify(parsed.payload, parsed.requirements)
    if (answer === 'chain-down')
      return unavailable(res, {
        isValid: false,
        invalidReason: 'chain_unavailable',
        invalidMessage: sandboxChainRestarting,
      })
    res.json(answer)
  })
  app.post('/settle', async (req, res) => {
    const parsed = parseFacilitatorRequest(req.body)
    if ('error' in parsed)
      return void res.status(400).json({
        error: parsed.error,
        success: false,
        errorReason: parsed.reason,
        errorMessage: parsed.error,
        transaction: '',
        network: '',
      })
    const answer = await judgeSettle(parsed.payload, parsed.requirements)
    if (answer === 'chain-down')
      return unavailable(res, {
        success: false,
        errorReason: 'chain_unavailable',
        errorMessage: sandboxChainRestarting,
        transaction: '',
        network: parsed.requirements.network,
      })
    res.json(answer)
  })
  app.use(createBazaarRoutes(catalog))
  app.use(notFoundHandler)
  app.use(createErrorHandler(options))

  return {
    facilitator,
    verify,
    settle,
    judgeVerify,
    judgeSettle,
    catalog,
    app,
    reset,
    receiverAuthorizer: receiverAuthorizer.address,
    channelActions,
  }
}

/** viem's multi-line error text, cut to the line that says why (the revert reason) and to a bounded length. */
function condense(message: string): string {
  const details = /^Details: (.*)$/m.exec(message)?.[1]
  return cutText((details ?? message.split('\n')[0] ?? message).trim(), errorMessageLimit)
}

/** Identity of a settlement: the signed payload and the requirements it is settled against. */
function settlementKey(payload: PaymentPayload, requirements: PaymentRequirements): string {
  return createHash('sha256')
    .update(canonicalJson([payload.payload, requirements], { hexCaseInsensitive: true }))
    .digest('hex')
}
