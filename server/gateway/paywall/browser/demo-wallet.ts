import type { Hex } from 'viem'
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts'
import { PageError } from './messages.js'

/** Where the demo wallet's key lives: this browser's storage for the gateway's origin. Sandbox money only. */
export const demoKeyStorage = 'svc-paywall-demo-key'

/** The demo wallet of this browser, made on first use; an edited key is a message offering a new wallet. */
export function demoWallet(storage: Storage): PrivateKeyAccount {
  let key = storage.getItem(demoKeyStorage)
  if (key === null) {
    key = generatePrivateKey()
    storage.setItem(demoKeyStorage, key)
  }
  if (!/^0x[0-9a-fA-F]{64}$/.test(key))
    throw new PageError(
      "The demo wallet's key kept in this browser is not a key (was it edited?): start a new demo wallet.",
      'state',
    )
  try {
    return privateKeyToAccount(key as Hex)
  } catch {
    throw new PageError(
      "The demo wallet's key kept in this browser is not a valid key: start a new demo wallet.",
      'state',
    )
  }
}

export function newDemoWallet(storage: Storage): PrivateKeyAccount {
  storage.removeItem(demoKeyStorage)
  return demoWallet(storage)
}

/** One click of "get test USDC": svc's faucet on this gateway host (Sandbox APIs only). */
export async function fundDemoWallet(faucetUrl: string, address: string): Promise<void> {
  const response = await fetch(faucetUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ address }),
  })
  if (!response.ok) {
    const body = (await response.json().catch(() => ({}))) as { error?: unknown }
    const error = typeof body.error === 'string' ? body.error : `it answered ${response.status}`
    throw new PageError(`The faucet did not fund the demo wallet: ${error.slice(0, 300)}`, 'network')
  }
}
