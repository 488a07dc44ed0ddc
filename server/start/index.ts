/**
 * The door of server/start/, the composition root: one `startSvc({ mode, … })` starts svc for `svc up`, `svc serve`,
 * the SDK's `startSandbox()` and the tests (options.ts names each option once; start-svc.ts decides by mode).
 */
export { chainStatePath, startSvc } from './start-svc.js'
export {
  type RunningServer,
  type RunningSvc,
  type SandboxChainMode,
  sandboxChainModes,
  type StartSvcOptions,
  type SvcMode,
} from './options.js'
