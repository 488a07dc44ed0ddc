import type { PaymentPayload, PaymentRequirements } from '@x402/core/types'
import type { ApiRow, EndpointRow, SettlementJournalRow } from '../../server/db/tables.js'
import { paymentIdentity } from '../../server/payments/identifier.js'
import { buildJournalRow, type JournalEntry } from '../../server/journal/journal.js'

export type TestJournalRowOptions = Partial<SettlementJournalRow> & {
  /** A payment the official client signed: the row's network, asset, amount, payer, nonce, deadline and id are its. */
  signed?: { payload: PaymentPayload; requirements: PaymentRequirements } | undefined
}

/**
 * A settlement journal row as the gateway writes it (the journal's own `buildJournalRow`, so a new column is filled
 * here as in production): an EIP-3009 payment of seller `u1`'s API `a1`, endpoint `e1`, Sandbox network, state
 * `settling`, unless `options` says otherwise; any column given in `options` is taken as it is.
 */
export function testJournalRow(id: string, options: TestJournalRowOptions = {}): SettlementJournalRow {
  const { signed, ...columns } = options
  const requirements: PaymentRequirements = signed?.requirements ?? {
    scheme: 'exact',
    network: 'eip155:845320402',
    asset: '0xa',
    amount: '1',
    payTo: '0x2',
    maxTimeoutSeconds: 60,
    extra: {},
  }
  const payload: PaymentPayload = signed?.payload ?? {
    x402Version: 2,
    accepted: requirements,
    payload: { authorization: { from: '0x1', nonce: `0x${id}`, validBefore: '9999999999' } },
  }
  const { authorization } = payload.payload as { authorization?: { from?: string } }
  const entry: JournalEntry = {
    api: { id: 'a1', user_id: 'u1', environment: 'development' } as ApiRow,
    endpoint: { id: 'e1' } as EndpointRow,
    ephemeral: false,
    requirements,
    payload,
    paymentId: signed ? paymentIdentity(payload, requirements) : `payment-${id}`,
    payer: authorization?.from ?? '0x1',
    method: 'GET',
    path: '/',
    chainEpoch: '',
  }
  return { ...buildJournalRow(entry, null, 'settling', id), ...columns }
}
