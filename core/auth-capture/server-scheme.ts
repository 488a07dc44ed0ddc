/**
 * `AuthCaptureServerScheme`: the resource-server half of x402's `auth-capture` scheme (scheme_auth_capture_evm.md
 * @3659f12) for `@x402/core`'s `x402ResourceServer.register` (2.27.0 ships no official one). It writes the 402's
 * `extra` (the facilitator's operator and escrow from its /supported kind, the receiver authorizer's address, the
 * flow, zero fee terms, the deadlines on a 60 s grid of the clock it is given), and drives the escrow flow core runs:
 * the client's payload settles before the handler (`authorize`); after it, a `sync` payment is captured (the handler
 * answered below 400: `Settlement-Overrides` captures less and voids the rest, 0 voids) or voided (it failed), each a
 * capture/void payload signed by the receiver authorizer; a `deferred` one stays held, for {@link
 * AuthCaptureServerScheme.capture}, `.void` and `.refund` later. The `authorization` flow completes the client's
 * payload into a terminal `charge` after the handler.
 *
 * Deadlines and the 402 → payment match: the deadlines are absolute, so a 402 built in one 60 s step and paid in the
 * next names other values than the requirements rebuilt for the payment. Core matches without them
 * (`dynamicExtraFields`); this scheme settles with the payment's own (the accepted) deadlines when they are this
 * step's or the previous step's, and refuses older ones.
 */
import type { FacilitatorClient } from '@x402/core/server'
import type {
  AssetAmount,
  DeepReadonly,
  Network,
  PaymentPayload,
  PaymentRequirements,
  Price,
  SchemeNetworkServer,
  SchemeServerHooks,
  SettleContext,
  SettleResponse,
  SettleResultContext,
  SupportedKind,
  VerifiedPaymentCanceledContext,
  VerifyContext,
  VerifyResponse,
} from '@x402/core/types'
import { convertToTokenAmount, parseMoney } from '@x402/core/utils'
import { findDefaultAsset, getDefaultAsset } from '@x402/evm'
import { type Address, getAddress, type Hex, isAddress, isAddressEqual, zeroAddress } from 'viem'
import {
  captureDeadlineMarginSeconds,
  defaultCaptureDeadlineSeconds,
  defaultRefundDeadlineSeconds,
  maxCaptureDeadlineSeconds,
  maxRefundDeadlineSeconds,
} from '../inputs/auth-capture-accept.js'
import { sandboxNetwork, sandboxUsdcDomain, usdcAddress, usdcDecimals } from '../sandbox-usdc.js'
import { type AuthCaptureDeployment, deploymentOfEscrow, offeredEscrow, packageDeployment } from './deployments.js'
import { feeBounds, normalizeExtra } from './extra.js'
import {
  buildCapture,
  buildRefund,
  buildVoid,
  completeCharge,
  type LifecycleTarget,
  type TypedDataSigner,
} from './lifecycle-payloads.js'
import { chainIdOf, reopenCollect } from './reopen.js'
import { type ReadPayload, readPayload } from './read-payload.js'
import { authCaptureScheme, type AuthCaptureExtra, type PaymentInfo } from './types.js'
import { acceptedDeadlineFits, gridDeadline } from './deadlines.js'
import { type AuthCapturePaymentRecord, type AuthCaptureStore, memoryAuthCaptureStore } from './payment-store.js'

/**
 * The escrow and collectors the scheme's 402s name (the installed `@x402/evm`'s v1.1 set, which its client signs
 * for): where an auth-capture payment's money is held, and what a buyer calls `reclaim` on.
 */
export const authCaptureDeployment = (): AuthCaptureDeployment => ({ ...packageDeployment })

/** What signs for the receiver authorizer: a viem LocalAccount, or anything with its address and `signTypedData`. */
export type ReceiverAuthorizer = TypedDataSigner & { address: Address }

export type AuthCaptureServerSchemeOptions = {
  /**
   * The receiver authorizer: the key whose EIP-712 signatures the facilitator checks on every capture, void, refund
   * and charge it relays (`extra.receiverAuthorizer`). One account, or one per `payTo`.
   */
  receiverAuthorizer: ReceiverAuthorizer | ((payTo: Address) => ReceiverAuthorizer)
  /**
   * The facilitator the lifecycle calls (`capture`, `void`, `refund`) and a previous step's payment settle through.
   * Without it those are refused (an in-request capture or void still goes through the resource server's facilitator).
   */
  facilitator?: FacilitatorClient
  /** @defaultValue {@link memoryAuthCaptureStore} */
  store?: AuthCaptureStore
  /** The clock the deadlines are written by, in milliseconds since the epoch (svc's `clock.now`). @defaultValue Date.now */
  now?: () => number
}

/** Thrown by the lifecycle methods for a payment the scheme cannot act on (unknown, no facilitator). */
export class AuthCaptureSchemeError extends Error {
  override name = 'AuthCaptureSchemeError'
}

/** The phases core settles an auth-capture payment in, per asset transfer method. */
const flows = { supported: ['escrow', 'authorization'], default: 'escrow' } as const

/** Fields a seller's route may not write: the scheme writes them (or svc's facilitator does not serve them). */
const refusedRouteFields: Record<string, string> = {
  captureDeadline: 'give captureDeadlineSeconds: the scheme writes the absolute deadline on its 60 s grid',
  refundDeadline: 'give refundDeadlineSeconds: the scheme writes the absolute deadline on its 60 s grid',
  autoCapture: 'was removed in auth-capture v1.1: use paymentFlow ("authorization" for a terminal charge)',
  policy: 'is for the "policy" operator type, which svc does not implement',
}

const isCollect = (read: ReadPayload): read is Extract<ReadPayload, { kind: 'eip3009' | 'permit2' }> =>
  read.kind !== 'lifecycle'

/** A payment reopened from the client's collect payload and the accepted requirements. */
type Resolved = {
  chainId: number
  extra: AuthCaptureExtra
  read: Extract<ReadPayload, { kind: 'eip3009' | 'permit2' }>
  deployment: AuthCaptureDeployment
  paymentInfo: PaymentInfo
  paymentInfoHash: Hex
  saltNonce: Hex
  /** The requirements to settle against: the live ones with the accepted deadlines and the authorized amount. */
  requirements: PaymentRequirements
}

export class AuthCaptureServerScheme implements SchemeNetworkServer {
  readonly scheme = authCaptureScheme
  readonly defaultAssetTransferMethod = 'eip3009'
  readonly paymentFlows = { eip3009: flows, permit2: flows }
  readonly dynamicExtraFields = ['captureDeadline', 'refundDeadline']
  readonly schemeHooks: SchemeServerHooks
  readonly store: AuthCaptureStore
  private readonly options: AuthCaptureServerSchemeOptions
  private readonly now: () => number
  /** The authorize answer of each payment in this request (core passes the same payload object to every phase). */
  private readonly authorized = new WeakMap<object, SettleResponse>()
  /** Each payment's last resolve (its settles and their hooks resolve the same payload against the same requirements). */
  private readonly resolved = new WeakMap<object, { live: object; resolved: Resolved | undefined }>()

  constructor(options: AuthCaptureServerSchemeOptions) {
    this.options = options
    this.store = options.store ?? memoryAuthCaptureStore()
    this.now = options.now ?? Date.now
    this.schemeHooks = {
      onBeforeVerify: (context) => this.beforeVerify(context),
      onBeforeSettle: (context) => this.beforeSettle(context),
      onAfterSettle: (context) => this.afterSettle(context),
    }
  }

  /** The receiver authorizer for `payTo`. */
  authorizerFor(payTo: string): ReceiverAuthorizer {
    const given = this.options.receiverAuthorizer
    return typeof given === 'function' ? given(getAddress(payTo)) : given
  }

  async parsePrice(price: Price, network: Network): Promise<AssetAmount> {
    if (typeof price === 'object' && price !== null && 'amount' in price) {
      if (!price.asset) throw new Error(`an { amount, asset } price needs its asset on ${network}`)
      return {
        amount: price.amount,
        asset: price.asset,
        extra: { ...this.domainOf(price.asset, network), ...price.extra },
      }
    }
    const { amount } = parseMoney(price)
    if (network === sandboxNetwork)
      return { amount: convertToTokenAmount(amount, usdcDecimals), asset: usdcAddress, extra: { ...sandboxUsdcDomain } }
    const asset = getDefaultAsset(network)
    return {
      amount: convertToTokenAmount(amount, asset.decimals),
      asset: asset.asset,
      extra: { name: asset.name, version: asset.version },
    }
  }

  getAssetDecimals(asset: string, network: Network): number | undefined {
    if (network === sandboxNetwork && isAddress(asset) && isAddressEqual(asset, usdcAddress)) return usdcDecimals
    return findDefaultAsset(asset, network)?.decimals
  }

  /** The token's EIP-712 domain when the scheme knows the asset (the Sandbox USDC, a network's default USDC). */
  private domainOf(asset: string, network: Network): { name?: string; version?: string } {
    if (network === sandboxNetwork && isAddress(asset) && isAddressEqual(asset, usdcAddress))
      return { ...sandboxUsdcDomain }
    const known = findDefaultAsset(asset, network)
    return known ? { name: known.name, version: known.version } : {}
  }

  async enhancePaymentRequirements(
    requirements: PaymentRequirements,
    supportedKind: SupportedKind,
    _facilitatorExtensions: string[],
  ): Promise<PaymentRequirements> {
    const route = { ...(requirements.extra ?? {}) }
    for (const [field, why] of Object.entries(refusedRouteFields))
      if (route[field] !== undefined) throw new Error(`auth-capture extra.${field} ${why}`)
    if (route.operatorType !== undefined && route.operatorType !== 'delegated')
      throw new Error('auth-capture extra.operatorType must be "delegated" (the facilitator is the operator)')
    const kind = supportedKind.extra ?? {}
    const captureAuthorizer = kind.captureAuthorizer
    if (typeof captureAuthorizer !== 'string' || !isAddress(captureAuthorizer))
      throw new Error(`the facilitator's auth-capture kind for ${requirements.network} names no captureAuthorizer`)
    if (route.captureAuthorizer !== undefined && !isAddressEqual(route.captureAuthorizer as Address, captureAuthorizer))
      throw new Error("auth-capture extra.captureAuthorizer is the facilitator's operator: leave it out")
    const escrow = typeof kind.authCaptureEscrow === 'string' ? getAddress(kind.authCaptureEscrow) : offeredEscrow
    const signer = this.authorizerFor(requirements.payTo)
    if (
      route.receiverAuthorizer !== undefined &&
      (typeof route.receiverAuthorizer !== 'string' ||
        !isAddressEqual(route.receiverAuthorizer as Address, signer.address))
    )
      throw new Error(
        "auth-capture extra.receiverAuthorizer is the scheme's receiver authorizer's address: leave it out",
      )
    const flow = route.paymentFlow ?? 'escrow'
    if (flow !== 'escrow' && flow !== 'authorization')
      throw new Error('auth-capture extra.paymentFlow must be "escrow" or "authorization"')
    if (flow === 'authorization' && route.captureMode !== undefined)
      throw new Error(
        'auth-capture extra.captureMode is for the escrow flow: leave it out with paymentFlow "authorization"',
      )
    const captureMode = flow === 'escrow' ? (route.captureMode ?? 'sync') : undefined
    if (captureMode !== undefined && captureMode !== 'sync' && captureMode !== 'deferred')
      throw new Error('auth-capture extra.captureMode must be "sync" or "deferred"')
    const captureSeconds = route.captureDeadlineSeconds ?? defaultCaptureDeadlineSeconds
    const refundSeconds = route.refundDeadlineSeconds ?? defaultRefundDeadlineSeconds
    const minCapture = requirements.maxTimeoutSeconds + captureDeadlineMarginSeconds
    if (
      typeof captureSeconds !== 'number' ||
      !Number.isInteger(captureSeconds) ||
      captureSeconds < minCapture ||
      captureSeconds > maxCaptureDeadlineSeconds
    )
      throw new Error(
        `auth-capture extra.captureDeadlineSeconds must be an integer from ${minCapture} (maxTimeoutSeconds + ${captureDeadlineMarginSeconds}) to ${maxCaptureDeadlineSeconds}`,
      )
    if (
      typeof refundSeconds !== 'number' ||
      !Number.isInteger(refundSeconds) ||
      refundSeconds < captureSeconds ||
      refundSeconds > maxRefundDeadlineSeconds
    )
      throw new Error(
        `auth-capture extra.refundDeadlineSeconds must be an integer from captureDeadlineSeconds (${captureSeconds}) to ${maxRefundDeadlineSeconds}`,
      )
    const minFeeBps = route.minFeeBps ?? 0
    const maxFeeBps = route.maxFeeBps ?? 0
    const feeRecipient = route.feeRecipient ?? zeroAddress
    const nowSeconds = Math.floor(this.now() / 1000)
    const { captureDeadlineSeconds: _c, refundDeadlineSeconds: _r, ...rest } = route
    const extra: Record<string, unknown> = {
      ...this.domainOf(requirements.asset, requirements.network),
      ...rest,
      authCaptureEscrow: escrow,
      captureAuthorizer: getAddress(captureAuthorizer),
      receiverAuthorizer: getAddress(signer.address),
      operatorType: 'delegated',
      paymentFlow: flow,
      ...(captureMode ? { captureMode } : {}),
      captureDeadline: gridDeadline(nowSeconds, captureSeconds),
      refundDeadline: gridDeadline(nowSeconds, refundSeconds),
      minFeeBps,
      maxFeeBps,
      feeRecipient:
        typeof feeRecipient === 'string' && isAddress(feeRecipient) ? getAddress(feeRecipient) : feeRecipient,
    }
    const judged = normalizeExtra(extra)
    if (!judged.ok) throw new Error(`auth-capture requirements: ${judged.message}`)
    return { ...requirements, extra }
  }

  /**
   * Reopens the client's collect payload against the requirements it accepted: the live requirements with the
   * accepted deadlines (core matched without them) and the authorized amount (a settlement override lowers the live
   * amount, never what was signed). Undefined for anything that is not an auth-capture collect.
   */
  private resolve(
    payment: DeepReadonly<PaymentPayload>,
    live: DeepReadonly<PaymentRequirements>,
  ): Resolved | undefined {
    const last = this.resolved.get(payment)
    if (last?.live === live) return last.resolved
    const resolved = this.resolveAgain(payment, live)
    this.resolved.set(payment, { live, resolved })
    return resolved
  }

  private resolveAgain(
    payment: DeepReadonly<PaymentPayload>,
    live: DeepReadonly<PaymentRequirements>,
  ): Resolved | undefined {
    const read = readPayload(payment.payload)
    if (!read.ok || !isCollect(read)) return undefined
    const accepted = payment.accepted as PaymentRequirements | undefined
    const liveExtra = (live.extra ?? {}) as Record<string, unknown>
    const acceptedExtra = (accepted?.extra ?? {}) as Record<string, unknown>
    const requirements = {
      ...(live as PaymentRequirements),
      amount: accepted?.amount ?? live.amount,
      extra: {
        ...liveExtra,
        captureDeadline: acceptedExtra.captureDeadline ?? liveExtra.captureDeadline,
        refundDeadline: acceptedExtra.refundDeadline ?? liveExtra.refundDeadline,
      },
    } as PaymentRequirements
    const chainId = chainIdOf(requirements.network)
    const normalized = normalizeExtra(requirements.extra)
    if (chainId === undefined || !normalized.ok) return undefined
    const reopened = reopenCollect({
      chainId,
      requirements,
      extra: normalized.extra,
      deployments: normalized.deployments,
      read,
    })
    if (!reopened.ok || read.payload.saltNonce === undefined) return undefined
    return {
      chainId,
      extra: normalized.extra,
      read,
      deployment: reopened.deployment,
      paymentInfo: reopened.paymentInfo,
      paymentInfoHash: reopened.paymentInfoHash,
      saltNonce: read.payload.saltNonce,
      requirements,
    }
  }

  /** The signer for a payment, checked against the `receiverAuthorizer` its requirements name. */
  private signerOf(resolved: Resolved): ReceiverAuthorizer {
    const signer = this.authorizerFor(resolved.requirements.payTo)
    if (!isAddressEqual(signer.address, resolved.extra.receiverAuthorizer))
      throw new Error(
        `the payment names receiverAuthorizer ${resolved.extra.receiverAuthorizer}, this scheme signs as ${signer.address}`,
      )
    return signer
  }

  private target(resolved: Resolved): LifecycleTarget {
    return {
      chainId: resolved.chainId,
      deployment: resolved.deployment,
      paymentInfo: resolved.paymentInfo,
      saltNonce: resolved.saltNonce,
    }
  }

  /**
   * The fields core adds to the client's payload for an after-handler or cancel settle (additive: the client's own
   * fields, its `saltNonce` included, stay): a sync escrow payment's capture of the live amount (with the void of the
   * rest when it is less than what was authorized; a void when it is 0), a cancel's void, an authorization-flow
   * payment's charge completion. Nothing before the handler, nor for a deferred payment.
   */
  readonly enrichSettlementPayload = async (context: SettleContext): Promise<Record<string, unknown> | undefined> => {
    if (context.phase === 'before-handler') return undefined
    const resolved = this.resolve(context.paymentPayload, context.requirements)
    if (!resolved) return undefined
    return this.enrichment(resolved, context.phase, context.requirements.amount)
  }

  private async enrichment(
    resolved: Resolved,
    phase: SettleContext['phase'],
    liveAmount: string,
  ): Promise<Record<string, unknown> | undefined> {
    const { extra } = resolved
    const signer = this.signerOf(resolved)
    const authorized = BigInt(resolved.requirements.amount)
    if (extra.paymentFlow === 'authorization') {
      if (phase !== 'after-handler') return undefined
      const amount = BigInt(liveAmount)
      const completed = await completeCharge(
        {
          chainId: resolved.chainId,
          reopened: resolved,
          method: resolved.read.kind,
          payload: resolved.read.payload,
          amount,
          feeAmount: feeBounds(amount, extra).min,
          feeReceiver: extra.feeRecipient,
        },
        signer,
      )
      const { amount: a, feeAmount, feeReceiver, authorizerSignature } = completed
      return { amount: a, feeAmount, feeReceiver, authorizerSignature }
    }
    if (
      phase === 'cancel' ||
      (phase === 'after-handler' && extra.captureMode === 'sync' && BigInt(liveAmount) === 0n)
    ) {
      const { saltNonce: _, ...fields } = await buildVoid(this.target(resolved), signer)
      return fields
    }
    if (phase !== 'after-handler' || extra.captureMode !== 'sync') return undefined
    const amount = BigInt(liveAmount)
    const stored = await this.store.get(resolved.paymentInfoHash)
    const { saltNonce: _, ...fields } = await buildCapture(
      this.target(resolved),
      {
        amount,
        feeAmount: feeBounds(amount, extra).min,
        feeReceiver: extra.feeRecipient,
        expectedCapturableAmount: stored?.capturable ?? authorized,
        expectedRefundableAmount: stored?.refundable ?? 0n,
        voidRest: amount < authorized,
      },
      signer,
    )
    return fields
  }

  /** A held escrow payment whose handler failed is voided: settle it again in the cancel phase. */
  settleOnCancel(context: VerifiedPaymentCanceledContext): PaymentRequirements | undefined {
    const flow = (context.requirements.extra as Record<string, unknown> | undefined)?.paymentFlow ?? 'escrow'
    return flow === 'escrow' ? (context.requirements as PaymentRequirements) : undefined
  }

  /** Whether the payment's deadlines are the live ones (`same`), a step old (`previous`) or older (`stale`). */
  private deadlinesOf(
    payment: DeepReadonly<PaymentPayload>,
    live: DeepReadonly<PaymentRequirements>,
  ): 'same' | 'previous' | 'stale' {
    const accepted = (payment.accepted?.extra ?? {}) as Record<string, unknown>
    const current = (live.extra ?? {}) as Record<string, unknown>
    if (accepted.captureDeadline === current.captureDeadline && accepted.refundDeadline === current.refundDeadline)
      return 'same'
    const fits =
      acceptedDeadlineFits(accepted.captureDeadline, current.captureDeadline) &&
      acceptedDeadlineFits(accepted.refundDeadline, current.refundDeadline)
    return fits ? 'previous' : 'stale'
  }

  private staleRefusal(live: DeepReadonly<PaymentRequirements>) {
    return {
      abort: true as const,
      reason: 'invalid_auth_capture_evm_extra',
      message: `the payment's deadlines are from an old 402: fetch a fresh one (${live.network})`,
    }
  }

  /** The authorization flow's /verify of a payment signed in the previous deadline step: verified with its own. */
  private async beforeVerify(context: VerifyContext) {
    if (context.requirements.scheme !== authCaptureScheme) return undefined
    const deadlines = this.deadlinesOf(context.paymentPayload, context.requirements)
    if (deadlines === 'same') return undefined
    const facilitator = this.options.facilitator
    if (deadlines === 'stale' || !facilitator) return this.staleRefusal(context.requirements)
    const resolved = this.resolve(context.paymentPayload, context.requirements)
    if (!resolved) return this.staleRefusal(context.requirements)
    const result: VerifyResponse = await facilitator.verify(
      context.paymentPayload as PaymentPayload,
      resolved.requirements,
    )
    return { skip: true as const, result }
  }

  /**
   * Before each settle: a deferred payment's after-handler settle is skipped (the hold stays; the answer carries the
   * authorize's receipt); a payment signed in the previous deadline step is settled here with its own deadlines (and
   * the enrichment core would add); an older one is refused. With a facilitator, an after-handler settle whose
   * amount a settlement override lowered is settled here too, against the requirements the payment was signed for
   * (core would send the lowered amount as `requirements.amount`, which is not the PaymentInfo's `maxAmount`): the
   * capture or charge payload carries the lowered amount.
   */
  private async beforeSettle(context: SettleContext) {
    if (context.requirements.scheme !== authCaptureScheme) return undefined
    const extra = (context.requirements.extra ?? {}) as Record<string, unknown>
    if (
      context.phase === 'after-handler' &&
      (extra.paymentFlow ?? 'escrow') === 'escrow' &&
      extra.captureMode === 'deferred'
    ) {
      const prior = this.authorized.get(context.paymentPayload)
      if (prior) return { skip: true as const, result: prior }
    }
    const deadlines = this.deadlinesOf(context.paymentPayload, context.requirements)
    const facilitator = this.options.facilitator
    const lowered =
      context.phase === 'after-handler' &&
      context.paymentPayload.accepted !== undefined &&
      context.paymentPayload.accepted.amount !== context.requirements.amount
    if (deadlines === 'same' && !(lowered && facilitator)) return undefined
    if (deadlines === 'stale' || !facilitator) return this.staleRefusal(context.requirements)
    const resolved = this.resolve(context.paymentPayload, context.requirements)
    if (!resolved) return deadlines === 'same' ? undefined : this.staleRefusal(context.requirements)
    const payment = context.paymentPayload as PaymentPayload
    try {
      const enrichment = await this.enrichment(resolved, context.phase, context.requirements.amount)
      const payload = enrichment ? { ...payment, payload: { ...payment.payload, ...enrichment } } : payment
      return { skip: true as const, result: await facilitator.settle(payload, resolved.requirements) }
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error)
      return {
        skip: true as const,
        result: {
          success: false,
          errorReason: 'unexpected_settle_error',
          errorMessage: message,
          transaction: '',
          network: context.requirements.network,
        } as SettleResponse,
      }
    }
  }

  /** After each successful settle: the payment's record (collect), its balances (capture, void). */
  private async afterSettle(context: SettleResultContext): Promise<void> {
    if (context.requirements.scheme !== authCaptureScheme || !context.result.success) return
    const resolved = this.resolve(context.paymentPayload, context.requirements)
    if (!resolved) return
    const { extra } = resolved
    const transaction = context.result.transaction
    if (context.phase === 'before-handler') {
      this.authorized.set(context.paymentPayload, context.result as SettleResponse)
      if (await this.store.get(resolved.paymentInfoHash)) return
      await this.store.set({
        paymentInfoHash: resolved.paymentInfoHash,
        network: resolved.requirements.network,
        chainId: resolved.chainId,
        escrow: resolved.deployment.escrow,
        paymentInfo: resolved.paymentInfo,
        saltNonce: resolved.saltNonce,
        requirements: resolved.requirements,
        flow: extra.paymentFlow,
        captureMode: extra.captureMode,
        capturable: resolved.requirements.amount,
        refundable: '0',
        collectTransaction: transaction,
        lastTransaction: transaction,
      })
      return
    }
    if (context.phase === 'after-handler' && extra.paymentFlow === 'authorization') {
      const charged = context.result.amount ?? context.requirements.amount
      await this.store.set({
        paymentInfoHash: resolved.paymentInfoHash,
        network: resolved.requirements.network,
        chainId: resolved.chainId,
        escrow: resolved.deployment.escrow,
        paymentInfo: resolved.paymentInfo,
        saltNonce: resolved.saltNonce,
        requirements: resolved.requirements,
        flow: extra.paymentFlow,
        captureMode: undefined,
        capturable: '0',
        refundable: charged,
        collectTransaction: transaction,
        lastTransaction: transaction,
      })
      return
    }
    if (extra.captureMode === 'deferred' && context.phase === 'after-handler') return
    const stored = await this.store.get(resolved.paymentInfoHash)
    if (!stored) return
    const captured = context.phase === 'after-handler' ? BigInt(context.requirements.amount) : 0n
    await this.store.set({
      ...stored,
      capturable: '0',
      refundable: String(BigInt(stored.refundable) + captured),
      lastTransaction: transaction,
    })
  }

  /** The payments this scheme collected (from its store). */
  async payments(): Promise<AuthCapturePaymentRecord[]> {
    return this.store.list()
  }

  private async lifecycle(
    paymentInfoHash: Hex,
    build: (
      record: AuthCapturePaymentRecord,
      target: LifecycleTarget,
      signer: ReceiverAuthorizer,
    ) => Promise<Record<string, unknown>>,
    after: (record: AuthCapturePaymentRecord) => Pick<AuthCapturePaymentRecord, 'capturable' | 'refundable'>,
  ): Promise<SettleResponse> {
    const facilitator = this.options.facilitator
    if (!facilitator)
      throw new AuthCaptureSchemeError('the scheme has no facilitator: give AuthCaptureServerScheme one')
    const record = await this.store.get(paymentInfoHash)
    if (!record) throw new AuthCaptureSchemeError(`payment ${paymentInfoHash} is not in this scheme's store`)
    const deployment = deploymentOfEscrow(record.escrow)
    if (!deployment)
      throw new AuthCaptureSchemeError(`payment ${paymentInfoHash}'s escrow ${record.escrow} is not served`)
    const target = { chainId: record.chainId, deployment, paymentInfo: record.paymentInfo, saltNonce: record.saltNonce }
    const signer = this.authorizerFor(record.requirements.payTo)
    const payload = await build(record, target, signer)
    const result = await facilitator.settle(
      { x402Version: 2, accepted: record.requirements, payload } as PaymentPayload,
      record.requirements,
    )
    if (result.success) await this.store.set({ ...record, ...after(record), lastTransaction: result.transaction })
    return result
  }

  /**
   * Captures `amount` (default: all the escrow holds for it) of a held payment, fee-free unless the payment's fee
   * bounds ask for one. The facilitator's answer is returned as it is; the store follows a successful one.
   */
  capture(paymentInfoHash: Hex, options: { amount?: bigint | string } = {}): Promise<SettleResponse> {
    let amount = 0n
    return this.lifecycle(
      paymentInfoHash,
      async (record, target, signer) => {
        amount = BigInt(options.amount ?? record.capturable)
        return buildCapture(
          target,
          {
            amount,
            feeAmount: feeBounds(amount, record.paymentInfo).min,
            feeReceiver: record.paymentInfo.feeReceiver,
            expectedCapturableAmount: record.capturable,
            expectedRefundableAmount: record.refundable,
          },
          signer,
        )
      },
      (record) => ({
        capturable: String(BigInt(record.capturable) - amount),
        refundable: String(BigInt(record.refundable) + amount),
      }),
    )
  }

  /** Voids what a held payment still holds: it goes back to the payer. */
  void(paymentInfoHash: Hex): Promise<SettleResponse> {
    return this.lifecycle(
      paymentInfoHash,
      (_record, target, signer) => buildVoid(target, signer),
      (record) => ({ capturable: '0', refundable: record.refundable }),
    )
  }

  /** Refunds `amount` of what was captured (the facilitator needs the receiver's funding: its allowance to the operator). */
  refund(paymentInfoHash: Hex, options: { amount: bigint | string }): Promise<SettleResponse> {
    const amount = BigInt(options.amount)
    return this.lifecycle(
      paymentInfoHash,
      (record, target, signer) =>
        buildRefund(
          target,
          { amount, expectedCapturableAmount: record.capturable, expectedRefundableAmount: record.refundable },
          signer,
        ),
      (record) => ({ capturable: record.capturable, refundable: String(BigInt(record.refundable) - amount) }),
    )
  }
}
