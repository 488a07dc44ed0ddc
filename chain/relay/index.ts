/**
 * The door of chain/relay/: what the other rooms use, named. Another room imports only this file
 * (test/architecture/layers.test.ts; written by test/architecture/doors.ts); the files inside import each other
 * directly.
 */
export { createRpcTransport } from './anvil-rpc.js'
export { type BatchMiner, type MinedReceipts, startBatchMiner, startPoolGuard } from './miner.js'
export { contractCallGas, type Relay, relayMining } from './mode.js'
export { createRelayerSigner, type RelaySigner } from './relayer.js'
export { createTxSender, isRelayerNonceMessage, type TxSender } from './tx-sender.js'
export { createViemRelayerSigner } from './viem-signer.js'
