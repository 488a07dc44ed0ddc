import { x402Facilitator } from '@x402/core/facilitator'
import type { Network, PaymentRequirements } from '@x402/core/types'
import { ExactEvmScheme } from '@x402/evm/exact/facilitator'
import { ExactEvmSchemeV1 } from '@x402/evm/exact/v1/facilitator'
import { UptoEvmScheme } from '@x402/evm/upto/facilitator'
import { EIP2612_GAS_SPONSORING } from '@x402/extensions'
import { BAZAAR } from '@x402/extensions/bazaar'
import type { LocalAccount } from 'viem'
import { createRelayerSigner, type RelaySigner } from '../relay/relayer.js'
import { createViemRelayerSigner } from '../relay/viem-signer.js'
import type { SandboxChain } from '../sandbox-chain.js'
import type { BazaarCatalog } from './bazaar-catalog.js'
import { createBatchSettlementScheme } from '../batch-settlement/scheme.js'
import { createApprovalSponsoring } from './erc20-approval-sponsor.js'

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
 * schemes on the Sandbox chain and each twin, each chain relaying through its own signer (the tuned relay, or viem's
 * with `relay: 'viem'`); the bazaar catalog records what a settled payment declares.
 */
export function createSchemeFacilitator(
  chain: SandboxChain,
  twins: readonly SandboxChain[],
  catalog: BazaarCatalog,
  receiverAuthorizer: LocalAccount,
): SchemeFacilitator {
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
  return {
    facilitator,
    sandbox,
    settling,
    settlingFor: (requirements, x402Version) => byNetwork.get(`${x402Version}:${requirements.network}`),
  }
}
