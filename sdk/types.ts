/**
 * Shapes of the control plane's requests and answers, named after the types core/openapi.generated.ts generates from
 * server/openapi.yaml (the authority): a change of the yaml changes these types.
 */
import type { components, paths } from '../core/openapi.generated.js'
import type { Environment } from '../core/hosts.js'

export type { Environment }

type Schemas = components['schemas']
/** The JSON body of an operation's answer with `status`. */
type Answer<
  Operation extends { responses: object },
  Status extends keyof Operation['responses'],
> = Operation['responses'][Status] extends { content: { 'application/json': infer Body } } ? Body : never
/** The query parameters of an operation. */
type Query<Operation extends { parameters: { query?: object } }> = NonNullable<Operation['parameters']['query']>

export type User = Schemas['User']
export type Session = Schemas['Session']
export type Me = Answer<paths['/auth/me']['get'], 200>
export type OutboxMessage = Answer<paths['/dev/outbox']['get'], 200>['messages'][number]

export type ApiKey = Schemas['ApiKey']
export type CreatedApiKey = Answer<paths['/auth/api-keys']['post'], 201>

export type Api = Schemas['Api']
export type ApiInput = Schemas['ApiCreate']
export type ApiUpdate = Schemas['ApiUpdate']

/** An accept option as requests give it: `max_timeout_seconds` may be left out (the server makes it 300). */
export type Accept = Schemas['AcceptInput']
export type Endpoint = Schemas['Endpoint']
export type EndpointInput = Schemas['EndpointCreate']
export type EndpointUpdate = Schemas['EndpointUpdate']

export type ParsedOperation = Schemas['ParsedOperation']
export type ParsedSpec = Schemas['ParsedOpenApi']
export type ImportOperation = Schemas['ImportOperation']
export type ImportResult = Answer<paths['/apis/{apiId}/openapi/import']['post'], 200>

export type PaymentToken = Schemas['PaymentToken']
export type PlatformConfig = Answer<paths['/config/platform']['get'], 200>
export type LocalDevConfig = Answer<paths['/config/local-dev']['get'], 200>

export type SandboxWallet = Schemas['SandboxWallet']
export type Balances = Schemas['SandboxBalances']
export type FaucetResult = Schemas['SandboxFaucetResult']

export type DiscoverySummary = Schemas['DiscoverySummary']

export type Domain = Schemas['Domain']
export type DomainVerification = Schemas['DomainVerification']

export type StatsRevenue = Schemas['StatsRevenue']
export type StatsOverview = Schemas['StatsOverview']
export type StatsCounters = Omit<StatsOverview['totals'], 'unique_payers'>
export type StatsQuery = Query<paths['/stats/overview']['get']>

export type Settlement = Schemas['Settlement']
export type SettlementPage = Schemas['SettlementPage']
/** Filters of GET /settlements; `from`/`to` are ISO timestamps with a zone or YYYY-MM-DD days. */
export type SettlementFilter = Omit<Query<paths['/settlements']['get']>, 'limit' | 'cursor' | 'format'>
export type Channel = Schemas['Channel']
export type ChannelDetail = Answer<paths['/channels/{channelId}']['get'], 200>
export type ChannelQuery = Omit<Query<paths['/channels']['get']>, 'format'>
export type EscrowPayment = Schemas['EscrowPayment']
export type EscrowTransaction = Schemas['EscrowTransaction']
export type EscrowPaymentDetail = Answer<paths['/payments/{paymentId}']['get'], 200>
export type EscrowPaymentMoved = Schemas['EscrowPaymentMoved']
export type EscrowPaymentQuery = Omit<Query<paths['/payments']['get']>, 'format'>
export type SettlementQuery = Omit<Query<paths['/settlements']['get']>, 'format'>

/** A whole-sandbox snapshot (`svc snapshot`). */
export type Snapshot = Schemas['Snapshot']
export type SnapshotRevert = Answer<paths['/dev/snapshots/{snapshotId}/revert']['post'], 200>
/** The chain's time and svc's own clock (`svc time`). */
export type SandboxTime = Schemas['SandboxTime']
/** A fault injected into the Sandbox (`svc fault add`). */
export type Fault = Schemas['Fault']
export type FaultInput = Schemas['FaultCreate']
export type FaultList = Answer<paths['/dev/faults']['get'], 200>
export type ChainRestart = Answer<paths['/dev/chain/restart']['post'], 200>
/** One event of the live stream (`GET /events`, `svc listen`, the test handle's `events()`). */
export type PaymentEvent = Schemas['PaymentEvent']
export type PaymentEventType = PaymentEvent['type']
/** A whole-Sandbox change on `GET /events` (a revert, time travel, a chain restart) and who made it. */
export type SandboxEvent = Schemas['SandboxEvent']
/** What `GET /events` streams: a payment event, or a whole-Sandbox one (`type` starts with `sandbox.`). */
export type StreamEvent = PaymentEvent | SandboxEvent
/** Options of `client.events.stream()`. */
export type EventStreamOptions = {
  /** Only this API's events. */
  apiId?: string | undefined
  /** Resume after this event: svc first replays the later ones it still keeps (the last 1,000). */
  lastEventId?: string | undefined
  /** Ends the iteration and closes the connection. */
  signal?: AbortSignal | undefined
  /** The first wait before a reconnection (doubling while svc is unreachable, up to 10 s). @defaultValue 500 */
  retryMs?: number | undefined
  /** Called each time svc accepted a connection (the first, and each reconnection): from then on no event is missed. */
  onOpen?: (() => void) | undefined
}
