import { BATCH_SETTLEMENT_ADDRESS, ERC3009_DEPOSIT_COLLECTOR_ADDRESS } from '@x402/evm'
import type { Address } from 'viem'
import {
  type CodeClients,
  type ContractCode,
  placeContractCode,
  erc3009DepositCollectorDeployedBytecode,
  permit2DepositCollectorDeployedBytecode,
  x402BatchSettlementDeployedBytecode,
} from '../contracts/index.js'

/**
 * Where x402's batch-settlement scheme (payment channels) runs: `@x402/evm`'s constants (the official deployments).
 * The Permit2 collector's address is not exported from the package's root, so it is written here.
 */
export const batchSettlementAddresses = {
  settlement: BATCH_SETTLEMENT_ADDRESS as Address,
  erc3009Collector: ERC3009_DEPOSIT_COLLECTOR_ADDRESS as Address,
  permit2Collector: '0x4020425FAf3B746C082C2f942b4E5159887B0005' as Address,
} as const

const batchSettlementContracts: ContractCode[] = [
  { address: batchSettlementAddresses.settlement, bytecode: x402BatchSettlementDeployedBytecode },
  { address: batchSettlementAddresses.erc3009Collector, bytecode: erc3009DepositCollectorDeployedBytecode },
  { address: batchSettlementAddresses.permit2Collector, bytecode: permit2DepositCollectorDeployedBytecode },
]

/**
 * Places svc's x402BatchSettlement and its ERC-3009 and Permit2 deposit collectors (chain/contracts/) at their
 * official addresses with `anvil_setCode`. They hold no immutables and need no constructor (the collectors name the
 * settlement contract and Permit2 as constants), so the runtime code is all they need. An address that already has
 * code (a forked chain with the real deployments) keeps its own.
 */
export function installBatchSettlementContracts(clients: CodeClients): Promise<void> {
  return placeContractCode(clients, batchSettlementContracts)
}
