/**
 * The door of chain/anvil/: what the other rooms use, named. Another room imports only this file
 * (test/architecture/layers.test.ts; written by test/architecture/doors.ts); the files inside import each other
 * directly.
 */
export { type AnvilProcess, keptBlocks, startAnvil, type StartAnvilOptions } from './anvil.js'
export {
  anvilPidFileName,
  anvilPidFileNames,
  type StaleAnvil,
  stopStaleAnvil,
  twinAnvilPidFileName,
} from './pid-file.js'
export {
  anvilStateArgs,
  chainFileError,
  distrustExitDump,
  newExitDumpPath,
  prepareChainState,
  promoteState,
  saveChainState,
  stateIntervalSeconds,
  trustedExitDump,
  trustExitDump,
  unreadableState,
  writeFileAtomically,
} from './state-file.js'
