import { createHmac } from 'node:crypto'
import { expect, test } from 'vitest'
import { eventSignature, verifyEventSignature } from '../../core/event-signature.js'

const body = '{"type":"payment.settled","amount":"10000"}'

test('svc-signature: t=<unix>,v1=<hex HMAC-SHA256 of "t.body">, as docs/sandbox-tools.md says to check it without the SDK', () => {
  const header = eventSignature('whsec_test', body, 1_800_000_000)
  const expected = createHmac('sha256', 'whsec_test').update(`1800000000.${body}`).digest('hex')
  expect(header).toBe(`t=1800000000,v1=${expected}`)
  expect(verifyEventSignature('whsec_test', header, body, { nowSeconds: 1_800_000_100 })).toBe(true)
})

test('refused: another secret, another body, a signature more than 5 minutes away, a malformed header', () => {
  const header = eventSignature('whsec_test', body, 1_800_000_000)
  const now = { nowSeconds: 1_800_000_000 }
  expect(verifyEventSignature('whsec_other', header, body, now)).toBe(false)
  expect(verifyEventSignature('whsec_test', header, body.replace('10000', '1'), now)).toBe(false)
  expect(verifyEventSignature('whsec_test', header, body, { nowSeconds: 1_800_000_301 })).toBe(false)
  for (const bad of [undefined, '', 't=1800000000', 'v1=00', `t=abc,v1=${'0'.repeat(64)}`, 't=1800000000,v1=zz'])
    expect(verifyEventSignature('whsec_test', bad, body, now)).toBe(false)
})
