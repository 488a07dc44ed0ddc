import type { ClientEvmSigner } from '@x402/evm'
import { type Address, createPublicClient, createWalletClient, custom, numberToHex } from 'viem'
import type { PaywallState } from '../paywall-state.js'
import { PageError } from './messages.js'

/** An EIP-1193 provider (MetaMask's `window.ethereum`). */
export type Eip1193Provider = { request(args: { method: string; params?: unknown[] }): Promise<unknown> }

export type InjectedWallet = { address: Address; signer: ClientEvmSigner; provider: Eip1193Provider }

const chainIdOf = async (provider: Eip1193Provider) => Number(await provider.request({ method: 'eth_chainId' }))

/**
 * The person's wallet, on the chain the payment is on: for the Sandbox the page adds svc's chain
 * (`wallet_addEthereumChain` with the gateway's RPC URL, ETH), otherwise it asks the wallet to switch. A wallet left
 * on another chain is a message naming the chain to pick, before anything is signed.
 */
export async function connectInjected(
  state: PaywallState,
  provider: Eip1193Provider | undefined,
): Promise<InjectedWallet> {
  if (!provider)
    throw new PageError(
      'No browser wallet was found on this page: install one (MetaMask, for instance) or use the demo wallet.',
      'wallet',
    )
  const accounts = (await provider.request({ method: 'eth_requestAccounts' })) as string[]
  const address = accounts?.[0] as Address | undefined
  if (!address) throw new PageError('Your wallet shared no account: unlock it and try again.', 'wallet')
  const network = state.paymentRequired.accepts[0]!.network
  const wanted = state.chain?.chainId ?? Number(network.split(':')[1])
  if ((await chainIdOf(provider)) !== wanted) {
    if (state.chain)
      await provider.request({
        method: 'wallet_addEthereumChain',
        params: [
          {
            chainId: numberToHex(state.chain.chainId),
            chainName: state.chain.name,
            rpcUrls: [state.chain.rpcUrl],
            nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
          },
        ],
      })
    if ((await chainIdOf(provider)) !== wanted)
      await provider.request({ method: 'wallet_switchEthereumChain', params: [{ chainId: numberToHex(wanted) }] })
    const now = await chainIdOf(provider)
    if (now !== wanted)
      throw new PageError(
        `Your wallet is on chain ${now}; this payment is on ${state.chain?.name ?? network} (chain ${wanted}). Switch your wallet to it and try again.`,
        'wallet',
      )
  }
  const transport = custom(provider)
  const wallet = createWalletClient({ account: address, transport })
  const reads = createPublicClient({ transport })
  const signer: ClientEvmSigner = {
    address,
    signTypedData: (message) => wallet.signTypedData(message as Parameters<typeof wallet.signTypedData>[0]),
    readContract: (args) => reads.readContract(args as Parameters<typeof reads.readContract>[0]),
  }
  return { address, signer, provider }
}
