import { PERMIT2_ADDRESS, x402ExactPermit2ProxyAddress, x402UptoPermit2ProxyAddress } from '@x402/evm'
import type { Address } from 'viem'
import {
  type CodeClients,
  type ContractCode,
  placeContractCode,
  permit2DeployedBytecode,
  x402ExactPermit2ProxyDeployedBytecode,
  x402UptoPermit2ProxyDeployedBytecode,
} from '../contracts/index.js'

/** Where x402's Permit2 payments run: the addresses are `@x402/evm`'s constants (the official deployments). */
export const permit2Addresses = {
  permit2: PERMIT2_ADDRESS as Address,
  exactProxy: x402ExactPermit2ProxyAddress as Address,
  uptoProxy: x402UptoPermit2ProxyAddress as Address,
} as const

const permit2Contracts: ContractCode[] = [
  { address: permit2Addresses.permit2, bytecode: permit2DeployedBytecode },
  { address: permit2Addresses.exactProxy, bytecode: x402ExactPermit2ProxyDeployedBytecode },
  { address: permit2Addresses.uptoProxy, bytecode: x402UptoPermit2ProxyDeployedBytecode },
]

/**
 * Places svc's Permit2 (signature transfers) and x402's exact and upto Permit2 proxies (chain/contracts/) at their
 * official addresses with `anvil_setCode`. They hold no immutables and need no constructor, so the runtime code is all
 * they need. An address that already has code (a forked chain with the real deployments) keeps its own.
 */
export function installPermit2Contracts(clients: CodeClients): Promise<void> {
  return placeContractCode(clients, permit2Contracts)
}
