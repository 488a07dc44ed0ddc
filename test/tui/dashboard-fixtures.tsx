/** Data builders and frame helpers shared by the dashboard's component tests. */
import { Box } from 'ink'
import { render } from 'ink-testing-library'
import type { ReactNode } from 'react'
import type { Endpoint, EscrowPayment, Settlement } from '../../sdk/types.js'
import type { SettlementFeed } from '../../tui/model.js'

export const usdc = '0x0000000000000000000000000000000000c0ffee'
export const address = '0x08210FdadC4fF91A92A3D49561109bD86BfDA6Ed'
export const txHash = `0x${'ab12'.repeat(16)}`
export const now = Date.parse('2026-01-01T12:00:00Z')

/** The frame's lines, trailing spaces removed. */
export const linesOf = (frame: string | undefined) => (frame ?? '').split('\n').map((line) => line.trimEnd())

/** Renders `node` in a box `width` columns wide, as the dashboard lays it out in a terminal that wide. */
export const renderAt = (width: number, node: ReactNode) => render(<Box width={width}>{node}</Box>)

export function endpoint(overrides: Partial<Endpoint>): Endpoint {
  return {
    id: `ep_${Math.random().toString(36).slice(2)}`,
    api_id: 'api_1',
    method: 'GET',
    path_pattern: '/weather/{city}',
    accepts: [
      {
        scheme: 'exact',
        network: 'eip155:845320402',
        asset: usdc,
        amount: '10000',
        max_timeout_seconds: 300,
        extra: {},
      },
    ],
    request_schema: null,
    response_schema: null,
    schema_source: 'manual',
    enabled: true,
    description: null,
    payment_identifier_required: false,
    ttl: null,
    expires_at: null,
    siwx: null,
    created_at: '2026-01-01T11:00:00.000Z',
    updated_at: '2026-01-01T11:00:00.000Z',
    ...overrides,
  }
}

/** A whole list of settlements as the panel gets it (the page is all there is). */
export function feedOf(settlements: Settlement[]): SettlementFeed {
  const old = settlements.filter((s) => s.old_chain).length
  return { newest: settlements, current: settlements.length - old, old }
}

/** An API as GET /apis answers it, gateway URL included (what the dashboard keeps of it). */
export const apiOf = (id: string, name: string, slug: string) => ({
  id,
  name,
  slug,
  gateway_url: `http://${slug}.dev.localhost:4020`,
  upstream_base_url: 'http://127.0.0.1:8080',
  pay_to_address: address,
})

export function settlement(id: string, createdAt: string, path: string): Settlement {
  return {
    id,
    api_id: 'api_1',
    endpoint_id: 'ep_1',
    environment: 'development',
    network: 'eip155:845320402',
    asset: usdc,
    amount: '25000',
    payer: '0x1234567890abcdef1234567890abcdef1234abcd',
    pay_to: address,
    transaction: txHash,
    method: 'GET',
    path,
    created_at: createdAt,
    chain_epoch: '0123456789abcdef',
    old_chain: false,
    delivered: true,
    builder_code: null,
  }
}

/** An escrow payment (x402 auth-capture) as GET /payments answers it: a deferred hold of 0.01 USDC until `now` + 250 s. */
export function escrowPayment(overrides: Partial<EscrowPayment>): EscrowPayment {
  const seconds = Math.floor(now / 1000)
  return {
    id: 'esc_1',
    api_id: 'api_1',
    endpoint_id: 'ep_1',
    settlement_id: 'stl_1',
    environment: 'development',
    network: 'eip155:845320402',
    asset: usdc,
    payer: '0x1234567890abcdef1234567890abcdef1234abcd',
    pay_to: address,
    method: 'GET',
    path: '/book',
    flow: 'escrow',
    capture_mode: 'deferred',
    transfer_method: 'eip3009',
    escrow: '0x13AC3b34322D12FE27D5e192D0c2b2266d4F29CB',
    operator: `0x${'5'.repeat(40)}`,
    receiver_authorizer: `0x${'6'.repeat(40)}`,
    payment_info_hash: `0x${'7'.repeat(64)}`,
    payment_info: {} as EscrowPayment['payment_info'],
    salt_nonce: null,
    authorized: '10000',
    captured: '0',
    fees: '0',
    voided: '0',
    refunded: '0',
    reclaimed: '0',
    capturable: '10000',
    refundable: '0',
    state: 'authorized',
    pre_approval_expiry: seconds + 60,
    capture_deadline: seconds + 250,
    refund_deadline: seconds + 3600,
    delivered: true,
    chain_epoch: '0123456789abcdef',
    old_chain: false,
    created_at: '2026-01-01T11:58:00.000Z',
    updated_at: '2026-01-01T11:58:00.000Z',
    ...overrides,
  }
}

/** An escrow payment's part of its settlement (`Settlement.escrow`), from the payment. */
export const escrowSummaryOf = (p: EscrowPayment): NonNullable<Settlement['escrow']> => ({
  id: p.id,
  state: p.state,
  authorized: p.authorized,
  captured: p.captured,
  voided: p.voided,
  refunded: p.refunded,
  reclaimed: p.reclaimed,
  capture_deadline: p.capture_deadline,
  refund_deadline: p.refund_deadline,
})
