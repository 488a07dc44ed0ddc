import type { FaultBook } from '../../chain/faults/index.js'
import type { PaymentEvents } from '../payment-events.js'
import type { SandboxDeps } from '../sandbox/index.js'
import type { UpstreamDeps } from '../upstream/index.js'

/**
 * What payments/ reads of the server's deps (server/deps.ts's `ServerDeps` is one), declared here so payments/ stays
 * below the rooms that build them: the sandbox's and the upstream's, the faults, the production facilitator and the
 * live events.
 */
export type PaymentsDeps = SandboxDeps &
  UpstreamDeps & {
    /** With `chainOwner`: the Sandbox's faults in the database, struck by this process's gateway without the chain. */
    sandboxFaults?: FaultBook | undefined
    /** Facilitator of production APIs (SVC_FACILITATOR_URL); without it their paid routes answer 503. */
    productionFacilitatorUrl?: string | undefined
    /** The live payment events: the gateway publishes, `GET /events` streams. @defaultValue a bus of the app's own */
    events?: PaymentEvents | undefined
  }
