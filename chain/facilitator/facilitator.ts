import { createHash } from 'node:crypto'
import { x402Facilitator } from '@x402/core/facilitator'
import type { Network, PaymentPayload, PaymentRequirements, SettleResponse, VerifyResponse } from '@x402/core/types'
import { ExactEvmScheme } from '@x402/evm/exact/facilitator'
import { ExactEvmSchemeV1 } from '@x402/evm/exact/v1/facilitator'
import { UptoEvmScheme } from '@x402/evm/upto/facilitator'
import { EIP2612_GAS_SPONSORING } from '@x402/extensions'
import { BAZAAR } from '@x402/extensions/bazaar'
import type { Express } from 'express'
import { LRUCache } from 'lru-cache'
import { canonicalJson } from '../../core/canonical-json.js'
import { machineClock, type Clock } from '../../core/clock.js'
import { authorizationWindowReason, evmSchemes, offsetExplains } from './exact.js'
import { authorizationFields } from '../../core/eip3009-authorization.js'
import { cutText, errorMessageLimit } from '../../core/http.js'
import type { SandboxChain } from '../sandbox-chain.js'
import { createBazaarCatalog, type BazaarCatalog } from './bazaar-catalog.js'
import { createFacilitatorApp } from './routes.js'
import { createApprovalSponsoring } from './erc20-approval-sponsor.js'
import { type FaultBook, injectedSettleAnswer, injectedVerifyAnswer } from '../faults/index.js'
import { explainPermit2Refusal } from '../permit2/index.js'
import { checkSponsoredApproval } from './erc20-approval-checks.js'
import {
  createRelayerSigner,
  createViemRelayerSigner,
  isRelayerNonceMessage,
  type RelaySigner,
} from '../relay/index.js'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import type { Address, LocalAccount } from 'viem'
import {
  batchActionOf,
  batchSettlementSchemeName,
  type ChannelActionJournal,
  createBatchSettlementScheme,
  createChannelActionJournal,
  depositWindowReason,
  isChannelAction,
} from '../batch-settlement/index.js'
import {
  authCaptureSchemeName,
  createAuthCaptureScheme,
  createEscrowActionJournal,
  type EscrowActionJournal,
} from '../auth-capture/index.js'

export type SandboxFacilitator = {
  /** The official x402 facilitator with the exact and upto EVM schemes on the sandbox network only. */
  facilitator: x402Facilitator
  verify(payload: PaymentPayload, requirements: PaymentRequirements): Promise<VerifyResponse>
  /**
   * Settles once: the same payload and requirements settled again (or concurrently) answer the first
   * transaction and send nothing. Failed settlements are forgotten, so a payer can fix the cause and retry.
   */
  settle(payload: PaymentPayload, requirements: PaymentRequirements): Promise<SettleResponse>
  /**
   * {@link verify}, or 'chain-down' when the chain could not judge the payment (it is restarting, its RPC is gone); a
   * verify fault of every API (`faults`) answers first. What `POST /verify` answers, as a seller over HTTP meets it.
   */
  judgeVerify(payload: PaymentPayload, requirements: PaymentRequirements): Promise<VerifyResponse | 'chain-down'>
  /** {@link settle}, or 'chain-down' when the chain could not judge the payment; a settle fault of every API first. */
  judgeSettle(payload: PaymentPayload, requirements: PaymentRequirements): Promise<SettleResponse | 'chain-down'>
  /**
   * {@link judgeVerify} without taking a fault: svc's gateway calls it in process (client.ts), having taken the API's
   * faults and those of every API itself (server/payments/facilitator-calls.ts), so a payment meets a fault once.
   */
  verifyJudged(payload: PaymentPayload, requirements: PaymentRequirements): Promise<VerifyResponse | 'chain-down'>
  /** {@link judgeSettle} without taking a fault, as {@link verifyJudged}. */
  settleJudged(payload: PaymentPayload, requirements: PaymentRequirements): Promise<SettleResponse | 'chain-down'>
  /** The bazaar catalog of the resources it settled (`GET /discovery/resources`). */
  catalog: BazaarCatalog
  app: Express
  /**
   * The same routes taking no fault, for svc's own gateways in other processes (the team Sandbox's chain owner serves
   * it to them, server/cluster/cluster-routes.ts): they took the faults themselves, so a payment meets a fault once.
   */
  gatewayApp: Express
  /** Forgets the relayer's nonce and memory and the settled answers (after the chain was reverted to a snapshot). */
  reset(): void
  /** The batch-settlement receiver authorizer's address (`/supported`'s `extra.receiverAuthorizer`). */
  receiverAuthorizer: Address
  /** The batch-settlement actions it sent (deposits, claims, settles, refunds), journaled for crash recovery. */
  channelActions: ChannelActionJournal
  /** The auth-capture transactions it sent (authorize, charge, capture, void, refund), journaled for crash recovery. */
  escrowActions: EscrowActionJournal
  /** The auth-capture operator (`captureAuthorizer`): relayer account 1, the same on every chain and relay. */
  operator: Address
  /**
   * Whether a settlement of `authorizer`'s authorization `nonce` (EIP-3009's, or a Permit2 nonce) is under way here
   * now, from the call (a settle fault's delay included) to its answer: while it is, this facilitator may still send
   * its transaction (server/cluster/dropped-settlement.ts).
   */
  isSettling(authorizer: string, nonce: string): boolean
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
  const escrowActions = createEscrowActionJournal({ log: options.log })
  const { facilitator, sandbox, settling, settlingFor } = createSchemeFacilitator(chain, twins, catalog, {
    receiverAuthorizer,
    clock,
    escrowActions,
  })
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
  /** Settlements under way, by authorization (`from|nonce`, lower case), and how many calls are on each. */
  const underWay = new Map<string, number>()
  const authorizationKey = (authorizer: string, nonce: string) => `${authorizer}|${nonce}`.toLowerCase()
  /** Counts `settling` under its payload's authorization until it ends. */
  function whileSettling<T>(payload: PaymentPayload, settling: () => Promise<T>): Promise<T> {
    const { from, nonce } = authorizationFields(payload.payload)
    if (from === undefined || nonce === undefined) return settling()
    const key = authorizationKey(from, nonce)
    underWay.set(key, (underWay.get(key) ?? 0) + 1)
    const done = () => {
      const left = (underWay.get(key) ?? 1) - 1
      if (left > 0) underWay.set(key, left)
      else underWay.delete(key)
    }
    return settling().finally(done)
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
    // auth-capture judges its own times by svc's clock, with its own reasons (chain/auth-capture/collect.ts).
    if (clock.offsetMs === 0 || payload.accepted?.scheme === authCaptureSchemeName) return undefined
    const reason =
      authorizationWindowReason(payload.payload, clock.nowSeconds()) ?? depositWindowReason(payload, clock.nowSeconds())
    return reason && { reason, message: offsetExplains(payload, clock) }
  }

  function unsupported(requirements: PaymentRequirements, x402Version: number): string | undefined {
    if (x402Version !== 2 && x402Version !== 1) return 'invalid_x402_version'
    if (!settlingFor(requirements, x402Version)) return 'invalid_network'
    // v1 has the exact scheme only.
    if (!(x402Version === 1 ? v1Schemes : v2Schemes).includes(requirements.scheme)) return 'unsupported_scheme'
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
    // The transfer's simulation starts now, beside the scheme's signature recovery (chain/relay/relayer.ts).
    const on = settlingFor(requirements, payload.x402Version)!
    // An auth-capture collect is no transferWithAuthorization: nothing to simulate ahead.
    if (
      payload.x402Version === 2 &&
      (!isBatchPayload(payload) || !batchActionOf(payload)) &&
      requirements.scheme !== authCaptureSchemeName
    )
      on.signer.prefetch.start(payload, requirements)
    const verdict = await facilitator.verify(payload, requirements)
    // Only a failed Permit2 simulation may be a replay that its diagnosis names.
    const response =
      verdict.invalidReason === 'permit2_simulation_failed'
        ? await explainPermit2Refusal(on.chain.client, payload, verdict)
        : verdict
    if (response.isValid && payload.x402Version === 2 && mayCarryApproval(payload)) {
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
    // Only a batch-settlement payload is an action on a channel, journaled before it is sent.
    const batch = isBatchPayload(payload)
    const send = batch
      ? () => channelActions.run(payload, requirements, on.chain, () => facilitator.settle(payload, requirements))
      : () => facilitator.settle(payload, requirements)
    // A seller's claim, settle or refund is a new action each time: the memory of settled payloads does not answer it.
    if (batch && isChannelAction(payload))
      return send().then((response) =>
        response.errorMessage ? { ...response, errorMessage: condense(response.errorMessage) } : response,
      )
    const key = settlementKey(payload, requirements)
    const existing = settlements.get(key)
    if (existing) return existing
    // A sponsored approval is checked before anything is sent (the buyer's gas, the approval itself), unless this
    // payload's verify just did.
    const pending = (
      approvalCheckedFor(payload, requirements) || !mayCarryApproval(payload)
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

  /** The facilitator's answer, or 'chain-down' when the chain the payment settles on could not judge it. */
  const judged = <Answer>(
    requirements: PaymentRequirements,
    x402Version: number,
    judge: () => Promise<Answer>,
    accepted: (answer: Answer) => boolean,
  ) =>
    // The chain the payment settles on (the Sandbox chain for one it refuses anyway).
    judgedOn((settlingFor(requirements, x402Version) ?? sandbox).chain, judge, accepted)
  /** The chain's verdict, no fault taken (the gateway took the API's faults: server/payments/facilitator-calls.ts). */
  const verifyJudged = (payload: PaymentPayload, requirements: PaymentRequirements) =>
    judged(
      requirements,
      payload.x402Version,
      () => verify(payload, requirements),
      (verified) => verified.isValid,
    )
  /** As a seller calling over HTTP meets it: a verify fault of every API first. */
  const judgeVerify = async (payload: PaymentPayload, requirements: PaymentRequirements) => {
    const fault = await faults?.take('verify')
    if (fault) return injectedVerifyAnswer(fault, payload)
    return verifyJudged(payload, requirements)
  }
  const settleJudged = (payload: PaymentPayload, requirements: PaymentRequirements) =>
    whileSettling(payload, () => settledOnChain(payload, requirements))
  const judgeSettle = (payload: PaymentPayload, requirements: PaymentRequirements) =>
    whileSettling(payload, () => judgedSettle(payload, requirements))
  const settledOnChain = async (payload: PaymentPayload, requirements: PaymentRequirements) => {
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
  const judgedSettle = async (payload: PaymentPayload, requirements: PaymentRequirements) => {
    const fault = await faults?.take('settle')
    return fault
      ? injectedSettleAnswer(fault, payload, requirements, () => settledOnChain(payload, requirements))
      : settledOnChain(payload, requirements)
  }

  const app = createFacilitatorApp({ facilitator, chain, judgeVerify, judgeSettle, catalog, log: options.log })
  const gatewayApp = createFacilitatorApp({
    facilitator,
    chain,
    judgeVerify: verifyJudged,
    judgeSettle: settleJudged,
    catalog,
    log: options.log,
  })

  return {
    facilitator,
    verify,
    settle: (payload, requirements) => whileSettling(payload, () => settle(payload, requirements)),
    judgeVerify,
    judgeSettle,
    verifyJudged,
    settleJudged,
    catalog,
    app,
    gatewayApp,
    reset,
    receiverAuthorizer: receiverAuthorizer.address,
    channelActions,
    escrowActions,
    operator: sandbox.signer.getAddresses()[0]!,
    isSettling: (authorizer, nonce) => underWay.has(authorizationKey(authorizer, nonce)),
  }
}

/** A chain the facilitator settles on, with its own relayer signer. */
export type Settling = { chain: SandboxChain; signer: RelaySigner }

export type SchemeFacilitator = {
  /** The official facilitator, its schemes and extensions registered. */
  facilitator: x402Facilitator
  /** The Sandbox chain's. */
  sandbox: Settling
  /** The Sandbox chain's, then each twin's. */
  settling: Settling[]
  /** The chain of a v2 network or a v1 name (undefined: a network it does not settle on). */
  settlingFor(requirements: PaymentRequirements, x402Version: number): Settling | undefined
}

/**
 * The official `x402Facilitator` with `@x402/evm`'s exact (v2, and v1 on a twin's v1 name), upto and batch-settlement
 * schemes and svc's auth-capture scheme (chain/auth-capture/) on the Sandbox chain and each twin, each chain relaying through its own signer (the tuned relay, or viem's
 * with `relay: 'viem'`); the bazaar catalog records what a settled payment declares.
 */
export function createSchemeFacilitator(
  chain: SandboxChain,
  twins: readonly SandboxChain[],
  catalog: BazaarCatalog,
  signing: {
    /** The batch-settlement receiver authorizer. */
    receiverAuthorizer: LocalAccount
    /** svc's clock (auth-capture's time checks) and the escrow action journal. */
    clock: Clock
    escrowActions: EscrowActionJournal
  },
): SchemeFacilitator {
  const { receiverAuthorizer, clock, escrowActions } = signing
  const signerOf = (on: SandboxChain) => (on.relay === 'viem' ? createViemRelayerSigner(on) : createRelayerSigner(on))
  const sandbox: Settling = { chain, signer: signerOf(chain) }
  const settling = [sandbox, ...twins.map((twin) => ({ chain: twin, signer: signerOf(twin) }))]
  const byNetwork = new Map<string, Settling>()
  const facilitator = new x402Facilitator()
    .registerExtension(EIP2612_GAS_SPONSORING)
    .registerExtension(BAZAAR)
    // The bazaar catalog takes what a settled payment declares. On settle only: a verify is followed by its settle
    // (x402's own e2e facilitator records on both, which judged and wrote every paid resource twice), and a verified
    // payment that is never settled (its upstream failed) did not buy the resource the listing would advertise.
    // An escrow payment's capture, void or refund settles the resource its authorize already cataloged: not again.
    .onAfterSettle(async ({ paymentPayload, requirements, result }) => {
      if (result.success && !isEscrowLifecycle(paymentPayload)) catalog.record(paymentPayload, requirements)
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
      .register(
        on.chain.network,
        createAuthCaptureScheme({
          chain: on.chain,
          signer: on.signer,
          clock,
          actions: escrowActions,
        }),
      )
    if (on.chain.twin) {
      byNetwork.set(`1:${on.chain.twin.v1Network}`, on)
      facilitator.registerV1(
        on.chain.twin.v1Network as Network,
        new ExactEvmSchemeV1(on.signer, { simulateInSettle: true }),
      )
    }
  }
  return {
    facilitator,
    sandbox,
    settling,
    settlingFor: (requirements, x402Version) => byNetwork.get(`${x402Version}:${requirements.network}`),
  }
}

/** The schemes it settles, by x402 version (built once, not per request). */
const v1Schemes: readonly string[] = ['exact']
const v2Schemes: readonly string[] = [...evmSchemes, batchSettlementSchemeName, authCaptureSchemeName]

/** Whether `payload` pays by batch-settlement (`batchActionOf` and the channel journal ask nothing else first). */
const isBatchPayload = (payload: PaymentPayload) => payload.accepted?.scheme === batchSettlementSchemeName

/** Whether `payload` is an auth-capture payment's capture, void or refund (its payload names its `type`). */
const isEscrowLifecycle = (payload: PaymentPayload) =>
  payload.accepted?.scheme === authCaptureSchemeName && payload.payload.type !== undefined

/**
 * Whether `payload` may carry a sponsored approval for {@link checkSponsoredApproval} to judge: only a Permit2 payment
 * does (the check answers undefined for any other, an EIP-3009 one among them, without reading the chain).
 */
const mayCarryApproval = (payload: PaymentPayload) => {
  const inner = payload.payload as { permit2Authorization?: unknown } | null | undefined
  // A missing payload is judged by the check itself, as before.
  return inner === null || inner === undefined || Boolean(inner.permit2Authorization)
}

/** viem's multi-line error text, cut to the line that says why (the revert reason) and to a bounded length. */
function condense(message: string): string {
  const details = /^Details: (.*)$/m.exec(message)?.[1]
  return cutText((details ?? message.split('\n')[0] ?? message).trim(), errorMessageLimit)
}

/**
 * How many settled payloads the facilitator remembers for idempotent answers (a resource server that retries a
 * settlement it already got gets the same transaction). About 1.2 KB of heap each: a sandbox that runs for hours must
 * not hold every payment it ever settled. A payload settled longer ago than that is refused by the chain itself (its
 * authorization is used).
 */
const settledMemory = 10_000

/** Identity of a settlement: the signed payload and the requirements it is settled against. */
function settlementKey(payload: PaymentPayload, requirements: PaymentRequirements): string {
  return createHash('sha256')
    .update(canonicalJson([payload.payload, requirements], { hexCaseInsensitive: true }))
    .digest('hex')
}

/**
 * Whether `chain` cannot judge a payment now: it is restarting, or its RPC does not answer (Anvil died and its exit
 * was not seen yet).
 */
export const chainDown = async (chain: SandboxChain): Promise<boolean> =>
  chain.restarting ||
  (await chain.client.getChainId().then(
    () => false,
    () => true,
  ))

/**
 * `judge`'s answer, or 'chain-down' (the caller answers 503 with Retry-After) when `chain` could not judge the payment:
 * it is restarting, or `judge` refused or failed while the chain was down. Never a refusal the chain's absence caused.
 */
export async function judgedOn<Answer>(
  chain: SandboxChain,
  judge: () => Promise<Answer>,
  accepted: (answer: Answer) => boolean,
): Promise<Answer | 'chain-down'> {
  if (chain.restarting) return 'chain-down'
  try {
    const answer = await judge()
    if (accepted(answer) || !(await chainDown(chain))) return answer
  } catch (error) {
    if (!(await chainDown(chain))) throw error
  }
  return 'chain-down'
}
