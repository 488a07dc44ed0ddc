/**
 * The door of chain/contracts/: what the other rooms use, named. Another room imports only this file
 * (test/architecture/layers.test.ts; written by test/architecture/doors.ts); the files inside import each other
 * directly.
 */
export {
  authCaptureEscrowAbi,
  authCaptureEscrowDeployedBytecode,
  authCaptureEscrowImmutables,
} from './auth-capture-escrow.generated.js'
export {
  authCaptureTokenStoreAbi,
  authCaptureTokenStoreDeployedBytecode,
  authCaptureTokenStoreImmutables,
} from './auth-capture-token-store.generated.js'
export { erc3009DepositCollectorDeployedBytecode } from './erc3009-deposit-collector.generated.js'
export {
  erc3009PaymentCollectorAbi,
  erc3009PaymentCollectorDeployedBytecode,
  erc3009PaymentCollectorImmutables,
} from './erc3009-payment-collector.generated.js'
export { multicall3DeployedBytecode } from './multicall3.generated.js'
export {
  operatorRefundCollectorAbi,
  operatorRefundCollectorDeployedBytecode,
  operatorRefundCollectorImmutables,
} from './operator-refund-collector.generated.js'
export { type CodeClients, type ContractCode, placeContractCode } from './place-code.js'
export { permit2DepositCollectorDeployedBytecode } from './permit2-deposit-collector.generated.js'
export { permit2Abi, permit2DeployedBytecode } from './permit2.generated.js'
export {
  permit2PaymentCollectorAbi,
  permit2PaymentCollectorDeployedBytecode,
  permit2PaymentCollectorImmutables,
} from './permit2-payment-collector.generated.js'
export { sandboxUsdcAbi, sandboxUsdcDeployedBytecode } from './sandbox-usdc.generated.js'
export { x402BatchSettlementAbi, x402BatchSettlementDeployedBytecode } from './x402-batch-settlement.generated.js'
export {
  x402ExactPermit2ProxyAbi,
  x402ExactPermit2ProxyDeployedBytecode,
} from './x402-exact-permit2-proxy.generated.js'
export { x402UptoPermit2ProxyAbi, x402UptoPermit2ProxyDeployedBytecode } from './x402-upto-permit2-proxy.generated.js'
