import {
  AUTH_CAPTURE_ESCROW_ADDRESS,
  AUTH_CAPTURE_ESCROW_V1_0_ADDRESS,
  EIP3009_TOKEN_COLLECTOR_ADDRESS,
  OPERATOR_REFUND_COLLECTOR_ADDRESS,
  PERMIT2_TOKEN_COLLECTOR_ADDRESS,
} from '@x402/evm'
import { type Address, type Hex, padHex } from 'viem'
import {
  authCaptureEscrowDeployedBytecode,
  authCaptureEscrowImmutables,
  authCaptureTokenStoreDeployedBytecode,
  authCaptureTokenStoreImmutables,
  erc3009PaymentCollectorDeployedBytecode,
  erc3009PaymentCollectorImmutables,
  operatorRefundCollectorDeployedBytecode,
  operatorRefundCollectorImmutables,
  permit2PaymentCollectorDeployedBytecode,
  permit2PaymentCollectorImmutables,
  placeContractCode,
  type CodeClients,
  type ContractCode,
} from '../contracts/index.js'

/**
 * One installed set of base/commerce-payments' v1.1 contracts: the escrow, the TokenStore implementation its
 * constructor creates (its first CREATE, which every operator's token store proxies to), and its ERC-3009, Permit2
 * and operator refund collectors, each bound to this escrow.
 */
export type AuthCaptureDeployment = {
  escrow: Address
  tokenStoreImplementation: Address
  erc3009Collector: Address
  permit2Collector: Address
  operatorRefundCollector: Address
}

/**
 * Where x402's `auth-capture` scheme (escrow payments) runs: the same v1.1 contracts installed at two sets of
 * addresses, each set's collectors and token store bound to its own escrow, so a payment made for one set's escrow
 * cannot be collected through the other's collectors.
 * - `package`: the v1.1 deployment as the installed `@x402/evm` names it, its default: the escrow and collectors its
 *   `AuthCaptureEvmScheme` client signs for (it refuses an `extra.authCaptureEscrow` it does not know). svc's 402s
 *   name this one ({@link authCaptureAddresses}).
 * - `spec`: the v1.1 addresses of the scheme's EVM binding (x402's `scheme_auth_capture_evm.md`), so code written
 *   against the specification's table works too.
 * Only v1.1 is installed: the v1.0 addresses ({@link authCaptureV1_0Escrow}) stay empty, so a payment for v1.0 cannot
 * be collected. A test checks each set's store implementation is its escrow's first CREATE.
 */
export const authCaptureDeployments = {
  package: {
    escrow: AUTH_CAPTURE_ESCROW_ADDRESS as Address,
    tokenStoreImplementation: '0xe4be44B1505d29ae640748b4cce530ece6DcD450',
    erc3009Collector: EIP3009_TOKEN_COLLECTOR_ADDRESS as Address,
    permit2Collector: PERMIT2_TOKEN_COLLECTOR_ADDRESS as Address,
    operatorRefundCollector: OPERATOR_REFUND_COLLECTOR_ADDRESS as Address,
  },
  spec: {
    escrow: '0x13AC3b34322D12FE27D5e192D0c2b2266d4F29CB',
    tokenStoreImplementation: '0xd008e2b5A93648DFf17E4E7e0A9a972A6FE6d502',
    erc3009Collector: '0xEA902B37036bcb4944577ec2101ABdEDF56EbD28',
    permit2Collector: '0x1aacb38b16a1a8709e80746825E53A0C9Cae9b70',
    operatorRefundCollector: '0x6a1ADdEEb4bD9c5811a613e20c172b6CE61A4aaB',
  },
} as const satisfies Record<string, AuthCaptureDeployment>

/** The set svc's 402s name: `@x402/evm`'s v1.1 deployment (`authCaptureDeployments.package`). */
export const authCaptureAddresses: AuthCaptureDeployment = authCaptureDeployments.package

/** The v1.0 escrow (`feeBps` on `charge` and `capture`): not installed, named so a payload for it can be refused. */
export const authCaptureV1_0Escrow = AUTH_CAPTURE_ESCROW_V1_0_ADDRESS as Address

/**
 * Runtime code with its immutables written in, as the constructor would have: each named value, left-padded to a
 * 32-byte word, at each of its offsets (the generated artifact's `…Immutables`).
 */
function withImmutables<Name extends string>(
  code: Hex,
  offsets: Readonly<Record<Name, readonly number[]>>,
  values: Record<Name, Address>,
): Hex {
  let out: string = code
  for (const name of Object.keys(offsets) as Name[]) {
    const word = padHex(values[name], { size: 32 }).slice(2)
    for (const start of offsets[name]) out = out.slice(0, 2 + start * 2) + word + out.slice(2 + start * 2 + 64)
  }
  return out as Hex
}

/** The runtime code of one set's five contracts, by address, bound to that set's escrow and store implementation. */
function contractsOf(set: AuthCaptureDeployment): ContractCode[] {
  const bound = (code: Hex, offsets: { authCaptureEscrow: readonly number[] }) =>
    withImmutables(code, offsets, { authCaptureEscrow: set.escrow })
  return [
    {
      address: set.escrow,
      bytecode: withImmutables(authCaptureEscrowDeployedBytecode, authCaptureEscrowImmutables, {
        tokenStoreImplementation: set.tokenStoreImplementation,
      }),
    },
    {
      address: set.tokenStoreImplementation,
      bytecode: bound(authCaptureTokenStoreDeployedBytecode, authCaptureTokenStoreImmutables),
    },
    {
      address: set.erc3009Collector,
      bytecode: bound(erc3009PaymentCollectorDeployedBytecode, erc3009PaymentCollectorImmutables),
    },
    {
      address: set.permit2Collector,
      bytecode: bound(permit2PaymentCollectorDeployedBytecode, permit2PaymentCollectorImmutables),
    },
    {
      address: set.operatorRefundCollector,
      bytecode: bound(operatorRefundCollectorDeployedBytecode, operatorRefundCollectorImmutables),
    },
  ]
}

const authCaptureContracts = Object.values(authCaptureDeployments).flatMap(contractsOf)

/**
 * Places svc's AuthCaptureEscrow, its TokenStore implementation and its ERC-3009, Permit2 and operator refund
 * collectors (chain/contracts/) at both sets of v1.1 addresses ({@link authCaptureDeployments}) with
 * `anvil_setCode`, all at once. Their constructors only set immutables, which are written into the runtime code here
 * (each set's contracts naming its own escrow and store implementation), so the runtime code is all they need. An
 * address that already has code (a forked chain with the real deployment) keeps its own.
 */
export function installAuthCaptureContracts(clients: CodeClients): Promise<void> {
  return placeContractCode(clients, authCaptureContracts)
}
