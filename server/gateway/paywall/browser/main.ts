/**
 * The paywall page's script (bundled by bin/build.js into dist/paywall/paywall.js, served at /__svc/paywall.js). It
 * reads the state the server wrote into the page, enables the buttons, and pays with the demo wallet (Sandbox) or
 * the person's EIP-1193 wallet; then shows the API's answer and the settlement transaction. Every request goes to
 * the gateway's own host: the resource, its RPC proxy and its faucet.
 */
import { custom, http } from 'viem'
import type { PaywallState } from '../paywall-state.js'
import { priceLabel } from '../price.js'
import { balancesOf } from './chain-reads.js'
import { demoWallet, fundDemoWallet, newDemoWallet } from './demo-wallet.js'
import { connectInjected, type Eip1193Provider } from './injected-wallet.js'
import { messageOf, PageError } from './messages.js'
import { type Paid, pay } from './pay.js'
import { readPageState } from './page-state.js'
import { showAnswer } from './show-answer.js'

const byId = <T extends HTMLElement>(id: string) => document.getElementById(id) as T | null
const ui = {
  status: byId('status')!,
  error: byId('error')!,
  answer: byId('answer')!,
  result: byId('result')!,
  transaction: byId('transaction')!,
  demoAddress: byId('demo-address'),
  demoBalance: byId('demo-balance'),
  demoFund: byId<HTMLButtonElement>('demo-fund'),
  demoPay: byId<HTMLButtonElement>('demo-pay'),
  injectedPay: byId<HTMLButtonElement>('injected-pay')!,
  injectedLine: byId('injected-line')!,
  injectedAddress: byId('injected-address')!,
  injectedBalance: byId('injected-balance')!,
}
const buttons = () => [ui.demoFund, ui.demoPay, ui.injectedPay].filter((b): b is HTMLButtonElement => b !== null)

/** One action at a time: a second click while one runs does nothing (one signature, so at most one charge). */
let busy = false
async function run(action: () => Promise<void>, working: string) {
  if (busy) return
  busy = true
  for (const button of buttons()) button.disabled = true
  ui.error.hidden = true
  ui.error.replaceChildren()
  ui.status.textContent = working
  try {
    await action()
  } catch (error) {
    showError(error)
  } finally {
    busy = false
    for (const button of buttons()) button.disabled = false
  }
}

function showError(error: unknown, offer?: { label: string; act: () => void }) {
  ui.status.textContent = ''
  const text = document.createElement('p')
  text.textContent = messageOf(error)
  ui.error.replaceChildren(text)
  const kind = error instanceof PageError ? error.kind : undefined
  const remedy = offer ?? remedies(kind)
  if (remedy) {
    const button = document.createElement('button')
    button.type = 'button'
    button.textContent = remedy.label
    button.addEventListener('click', remedy.act)
    ui.error.append(button)
  }
  ui.error.hidden = false
}

let state: PaywallState
function remedies(kind: string | undefined): { label: string; act: () => void } | undefined {
  if (kind === 'insufficient' && state?.faucet && ui.demoFund)
    return { label: 'Get test USDC from the faucet', act: () => ui.demoFund!.click() }
  return undefined
}

async function shown(paid: Paid) {
  await showAnswer(ui.result, paid.response)
  ui.transaction.textContent = paid.transaction ?? '(none: nothing was settled)'
  ui.answer.hidden = false
  ui.status.textContent = `Paid in ${Math.round(paid.ms)} ms.`
  ui.answer.setAttribute('data-paid-ms', String(Math.round(paid.ms)))
  ui.answer.focus()
}

function setUpDemoWallet(state: PaywallState) {
  const chain = state.chain
  if (!chain || !state.faucet || !ui.demoPay || !ui.demoFund) return
  const faucet = state.faucet
  const rpc = http(chain.rpcUrl)
  const price = state.paymentRequired.accepts[0]!
  const refresh = async () => {
    const account = demoWallet(localStorage)
    ui.demoAddress!.textContent = account.address
    const balances = await balancesOf(rpc, chain.usdc, account.address)
    ui.demoBalance!.textContent = balances.text
    return { account, usdc: balances.usdc }
  }
  ui.demoFund.addEventListener('click', () =>
    run(async () => {
      const account = demoWallet(localStorage)
      await fundDemoWallet(faucet, account.address)
      await refresh()
      ui.status.textContent = 'The demo wallet got test USDC.'
    }, 'Asking the faucet…'),
  )
  ui.demoPay.addEventListener('click', () =>
    run(async () => {
      const { account, usdc } = await refresh()
      if (usdc < BigInt(price.amount))
        throw new PageError(
          `The demo wallet holds less than ${priceLabel(price)}: get test USDC from the faucet first.`,
          'insufficient',
        )
      ui.status.textContent = 'Signing and paying with the demo wallet…'
      const paid = await pay(state, account, chain.rpcUrl)
      await shown(paid)
      await refresh().catch(() => {})
    }, 'Checking the demo wallet…'),
  )
  refresh().catch((error) =>
    showError(
      error,
      error instanceof PageError && error.kind === 'state'
        ? {
            label: 'Start a new demo wallet',
            act: () => {
              newDemoWallet(localStorage)
              location.reload()
            },
          }
        : undefined,
    ),
  )
}

function setUpInjected(state: PaywallState) {
  const price = state.paymentRequired.accepts[0]!
  ui.injectedPay.addEventListener('click', () =>
    run(async () => {
      const provider = (window as unknown as { ethereum?: Eip1193Provider }).ethereum
      const wallet = await connectInjected(state, provider)
      ui.injectedAddress.textContent = wallet.address
      ui.injectedLine.hidden = false
      const usdc = state.chain?.usdc ?? { address: price.asset, decimals: 6 }
      const balances = await balancesOf(custom(wallet.provider), usdc, wallet.address).catch(() => undefined)
      ui.injectedBalance.textContent = balances?.text ?? 'unknown'
      if (balances && balances.usdc < BigInt(price.amount))
        throw new PageError(
          state.faucet
            ? `Your wallet holds less than ${priceLabel(price)}. Fund ${wallet.address} with Sandbox USDC (svc fund, or the demo wallet's faucet) and try again.`
            : `Your wallet holds less than ${priceLabel(price)} on ${price.network}: fund ${wallet.address} with USDC there and try again.`,
          'insufficient',
        )
      ui.status.textContent = 'Sign the payment in your wallet…'
      await shown(await pay(state, wallet.signer, undefined))
    }, 'Connecting to your wallet…'),
  )
}

try {
  state = readPageState(document)
  ui.answer.tabIndex = -1
  setUpDemoWallet(state)
  setUpInjected(state)
  for (const button of buttons()) button.disabled = false
} catch (error) {
  showError(error)
}
