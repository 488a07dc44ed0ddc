/**
 * The one stand-in of the browser tests: an EIP-1193 provider (`window.ethereum`) backed by a viem account in the test
 * process. The page calls `window.ethereum.request`; the init script passes it to Node (`exposeFunction`), where the
 * account signs typed data and everything else goes, as a wallet's own RPC calls do, to the RPC URL the page added
 * with `wallet_addEthereumChain`. It starts on chain 1, so the page must add svc's chain.
 */
import type { BrowserContext } from 'playwright-core'
import { type LocalAccount, numberToHex } from 'viem'
import { localFetch } from '../../sdk/local-fetch.js'

export type WalletDouble = {
  /** The chains the page added (`wallet_addEthereumChain`'s parameters). */
  added: { chainId: string; rpcUrls: string[]; chainName: string; nativeCurrency: unknown }[]
  /** Every method the page asked for, in order. */
  calls: string[]
  /** Typed data signed. */
  signed: { primaryType: string }[]
}

export type WalletBehaviour = {
  /** Refuse every signature with EIP-1193's 4001 (the person declined). */
  rejectSignatures?: boolean
  /** Ignore wallet_addEthereumChain and wallet_switchEthereumChain: the wallet stays on chain 1. */
  stayOnWrongChain?: boolean
}

export async function installWalletDouble(
  context: BrowserContext,
  account: LocalAccount,
  behaviour: WalletBehaviour = {},
): Promise<WalletDouble> {
  const double: WalletDouble = { added: [], calls: [], signed: [] }
  let chainId = 1
  let rpcUrl: string | undefined
  const providerError = (code: number, message: string) => ({ error: { code, message } })
  await context.exposeFunction('__svcWalletDouble', async (method: string, params: unknown[] = []) => {
    double.calls.push(method)
    switch (method) {
      case 'eth_requestAccounts':
      case 'eth_accounts':
        return { result: [account.address] }
      case 'eth_chainId':
        return { result: numberToHex(chainId) }
      case 'wallet_addEthereumChain': {
        const chain = params[0] as WalletDouble['added'][number]
        double.added.push(chain)
        if (behaviour.stayOnWrongChain) return { result: null }
        rpcUrl = chain.rpcUrls[0]
        chainId = Number(chain.chainId)
        return { result: null }
      }
      case 'wallet_switchEthereumChain':
        if (behaviour.stayOnWrongChain) return { result: null }
        if (rpcUrl === undefined || Number((params[0] as { chainId: string }).chainId) !== chainId)
          return providerError(4902, 'unknown chain')
        return { result: null }
      case 'eth_signTypedData_v4': {
        if (behaviour.rejectSignatures) return providerError(4001, 'User rejected the request.')
        const typed = JSON.parse(params[1] as string)
        double.signed.push({ primaryType: typed.primaryType })
        const { EIP712Domain: _, ...types } = typed.types
        return { result: await account.signTypedData({ ...typed, types }) }
      }
      default: {
        if (rpcUrl === undefined) return providerError(4900, 'the wallet is not connected to a chain svc knows')
        const answer = await localFetch(rpcUrl, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
        })
        const body = (await answer.json()) as { result?: unknown; error?: { code: number; message: string } }
        return body.error ? { error: body.error } : { result: body.result }
      }
    }
  })
  await context.addInitScript(() => {
    // Runs in the page (DOM types are not this program's): globalThis is the page's window.
    const page = globalThis as unknown as {
      __svcWalletDouble: (m: string, p?: unknown[]) => Promise<any>
      ethereum: unknown
    }
    const call = page.__svcWalletDouble
    page.ethereum = {
      isMetaMask: false,
      async request({ method, params }: { method: string; params?: unknown[] }) {
        const answer = await call(method, params)
        if (answer.error) throw Object.assign(new Error(answer.error.message), { code: answer.error.code })
        return answer.result
      },
    }
  })
  return double
}
