import type { PaymentEvent } from '../../server/payment-events.js'

/**
 * A payment.required event's fields as the gateway publishes them (no id: the bus gives it), made now: a 402 of
 * `GET /weather/paris` on API `api_1` (`weather`), endpoint `ep_1`, in the Sandbox, every other field null;
 * `overrides` taken as they are.
 */
export const paymentEventFields = (overrides: Partial<Omit<PaymentEvent, 'id'>> = {}): Omit<PaymentEvent, 'id'> => ({
  type: 'payment.required',
  created_at: new Date().toISOString(),
  environment: 'development',
  api_id: 'api_1',
  api_slug: 'weather',
  endpoint_id: 'ep_1',
  method: 'GET',
  path: '/weather/paris',
  amount: null,
  asset: null,
  network: null,
  pay_to: null,
  payer: null,
  transaction: null,
  settlement_id: null,
  reason: null,
  error: null,
  status: 402,
  charged: false,
  builder_code: null,
  channel_id: null,
  ...overrides,
})

/** {@link paymentEventFields} as a listener gets them: with its id, `evt_1` unless `overrides` names another. */
export const paymentEvent = (overrides: Partial<PaymentEvent> = {}): PaymentEvent => ({
  id: 'evt_1',
  ...paymentEventFields(),
  ...overrides,
})
