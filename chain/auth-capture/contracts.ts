import {
  AUTH_CAPTURE_ESCROW_ADDRESS,
  AUTH_CAPTURE_ESCROW_V1_0_ADDRESS,
  EIP3009_TOKEN_COLLECTOR_ADDRESS,
  OPERATOR_REFUND_COLLECTOR_ADDRESS,
  PERMIT2_TOKEN_COLLECTOR_ADDRESS,
} from '@x402/evm'
import type { Address, Hex, PublicClient, TestClient } from 'viem'
import {
  authCaptureEscrowDeployedBytecode,
  authCaptureTokenStoreDeployedBytecode,
  erc3009PaymentCollectorDeployedBytecode,
  operatorRefundCollectorDeployedBytecode,
  permit2PaymentCollectorDeployedBytecode,
} from '../contracts/index.js'

/**
 * Where x402's `auth-capture` scheme (escrow payments) runs: base/commerce-payments' v1.1 deployment as `@x402/evm`
 * names it (its default, the escrow and collectors its `AuthCaptureEvmScheme` client signs for), and the TokenStore
 * implementation the escrow's constructor creates (its first CREATE), which every operator's token store proxies to.
 * Only v1.1 is installed: the v1.0 addresses ({@link authCaptureV1_0Escrow}) stay empty, so a payment for v1.0 cannot
 * be collected. The binding's text has named other v1.1 addresses across its revisions (0x215E…, 0x13AC…); the
 * pinned client signs its nonce and collector for these, and refuses an `extra.authCaptureEscrow` it does not know,
 * so these are the ones a payment can use. The contracts name them as constants (a test checks they are the package's).
 */
export const authCaptureAddresses = {
  escrow: AUTH_CAPTURE_ESCROW_ADDRESS as Address,
  tokenStoreImplementation: '0xe4be44B1505d29ae640748b4cce530ece6DcD450' as Address,
  erc3009Collector: EIP3009_TOKEN_COLLECTOR_ADDRESS as Address,
  permit2Collector: PERMIT2_TOKEN_COLLECTOR_ADDRESS as Address,
  operatorRefundCollector: OPERATOR_REFUND_COLLECTOR_ADDRESS as Address,
} as const

/** The v1.0 escrow (`feeBps` on `charge` and `capture`): not installed, named so a payload for it can be refused. */
export const authCaptureV1_0Escrow = AUTH_CAPTURE_ESCROW_V1_0_ADDRESS as Address

const authCaptureContracts: { address: Address; bytecode: Hex }[] = [
  { address: authCaptureAddresses.escrow, bytecode: authCaptureEscrowDeployedBytecode },
  { address: authCaptureAddresses.tokenStoreImplementation, bytecode: authCaptureTokenStoreDeployedBytecode },
  { address: authCaptureAddresses.erc3009Collector, bytecode: erc3009PaymentCollectorDeployedBytecode },
  { address: authCaptureAddresses.permit2Collector, bytecode: permit2PaymentCollectorDeployedBytecode },
  { address: authCaptureAddresses.operatorRefundCollector, bytecode: operatorRefundCollectorDeployedBytecode },
]

/**
 * Places svc's AuthCaptureEscrow, its TokenStore implementation and its ERC-3009, Permit2 and operator refund
 * collectors (chain/contracts/) at their official v1.1 addresses with `anvil_setCode`. They hold no immutables and
 * need no constructor (the addresses they name are constants, checked against `@x402/evm`'s by
 * test/chain/auth-capture/contracts.test.ts), so the runtime code is all they need. An address that already has code
 * (a forked chain with the real deployment) keeps its own.
 */
export async function installAuthCaptureContracts({
  client,
  testClient,
}: {
  client: PublicClient
  testClient: TestClient
}): Promise<void> {
  await Promise.all(
    authCaptureContracts.map(async ({ address, bytecode }) => {
      const code = await client.getCode({ address })
      if (!code || code === '0x') await testClient.setCode({ address, bytecode })
    }),
  )
}
