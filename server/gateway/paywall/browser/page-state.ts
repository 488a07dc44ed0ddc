import type { PaywallState } from '../paywall-state.js'
import { PageError } from './messages.js'

const damaged = (what: string) =>
  new PageError(`This page's payment details are damaged (${what}): reload the page to get them again.`, 'state')

/** The state the server put in the page, checked: an edited page gets a message, not a half-working button. */
export function readPageState(document: Document): PaywallState {
  const text = document.getElementById('svc-paywall-state')?.textContent
  if (!text) throw damaged('none found')
  let state: PaywallState
  try {
    state = JSON.parse(text) as PaywallState
  } catch {
    throw damaged('not JSON')
  }
  const first = state?.paymentRequired?.accepts?.[0]
  if (!first || typeof first.network !== 'string' || !/^\d+$/.test(String(first.amount)))
    throw damaged('no payment option')
  if (typeof state.resource !== 'string' || !state.resource.startsWith('/')) throw damaged('no resource')
  if (state.body !== undefined && typeof state.body !== 'string') throw damaged('a body that is not text')
  if (state.chain && (!Number.isSafeInteger(state.chain.chainId) || typeof state.chain.rpcUrl !== 'string'))
    throw damaged('no chain')
  if (state.chain && new URL(state.chain.rpcUrl, location.href).origin !== location.origin)
    throw damaged('an RPC on another host')
  if (state.faucet && new URL(state.faucet, location.href).origin !== location.origin)
    throw damaged('a faucet on another host')
  return state
}
