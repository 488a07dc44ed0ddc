/**
 * The door of server/sandbox/: what the other rooms of server/ use, named. Another room imports only this file
 * (test/architecture/layers.test.ts); the files inside import each other directly.
 */
export { reconcileChainEpoch } from './chain-epoch.js'
export { alignChainTime } from './chain-time.js'
export { demoFaucet, demoFaucetAddress, fundDemoWallet } from './demo-faucet.js'
export type { SandboxDeps } from './deps.js'
export { localDevConfig, publicBazaarPath, publicRpcPath } from './local-dev-config.js'
export { createSandboxState } from './payment-gate.js'
export { sandboxUsdc } from './payment-token.js'
export { createPublicRpc, hasSandboxChain } from './public-rpc.js'
export { requireSandboxChain, sandboxChainFacts, sandboxChainReader, sandboxEpochOf } from './require-chain.js'
export { finishInterruptedRevert, removeRevertRecord, revertRecordPath, writeRevertRecord } from './revert-journal.js'
export { shareClock } from './shared-clock.js'
export { createSnapshotStore, type SnapshotStore } from './snapshots.js'
export { advanceSandboxTime, clockOf, getSandboxTime, resetSandboxTime } from './time-travel.js'
