import { x402Client } from '@x402/core/client'
import type { PaymentPayload } from '@x402/core/types'
import { PERMIT2_ADDRESS } from '@x402/evm'
import { ExactEvmScheme } from '@x402/evm/exact/client'
import { UptoEvmScheme } from '@x402/evm/upto/client'
import { wrapFetchWithPayment } from '@x402/fetch'
import { erc20Abi, type Address } from 'viem'
import { localFetch } from '../../../sdk/local-fetch.js'
import { newAccount } from '../../helpers/payments.js'
import { addEndpoint, createApi, newSeller, sandboxAccept, type GatewayStack } from './helpers.js'

/** What the erc20ApprovalGasSponsoring tests need of a gateway stack (`stack()` is read at each call). */
export function approvalKit(stack: () => Pick<GatewayStack, 'services' | 't' | 'upstream'>) {
  const chain = () => stack().services.sandboxChain
  /** A development API with one endpoint taking `accepts`. */
  async function apiWith(path_pattern: string, accepts: unknown[]) {
    const { t, upstream } = stack()
    const seller = await newSeller(t)
    const api = await createApi(t, seller, upstream.url)
    await addEndpoint(t, seller, api.id, { method: 'GET', path_pattern, accepts })
    return { seller, api }
  }
  /** A buyer with 10 USDC, no ETH and no approval, and the official client (as @x402/evm's README shows, with an RPC URL). */
  async function newBuyer() {
    const { services } = stack()
    const account = newAccount()
    await services.manager.fund(account.address, 'usdc', '10')
    const client = new x402Client()
      .register(chain().network, new ExactEvmScheme(account, { rpcUrl: services.rpcUrl }))
      .register(chain().network, new UptoEvmScheme(account, { rpcUrl: services.rpcUrl }))
    client.setSpendControls({
      allowedAssets: [{ network: chain().network, asset: chain().usdc.address, maxAmountPerPayment: '10000000' }],
    })
    const sent: PaymentPayload[] = []
    const recording = (async (input: string | URL | Request, init?: RequestInit) => {
      const signature = new Request(input, init).headers.get('payment-signature')
      if (signature) sent.push(JSON.parse(Buffer.from(signature, 'base64').toString()))
      return localFetch(input, init)
    }) as typeof fetch
    return { account, client, pay: wrapFetchWithPayment(recording, client), sent }
  }
  return {
    chain,
    apiWith,
    newBuyer,
    settlementsOf: (apiId: string) =>
      stack().t.server.database.db.selectFrom('settlements').selectAll().where('api_id', '=', apiId).execute(),
    allowanceOf: (owner: Address) =>
      chain().client.readContract({
        address: chain().usdc.address,
        abi: erc20Abi,
        functionName: 'allowance',
        args: [owner, PERMIT2_ADDRESS],
      }),
    /** An exact accept through Permit2 whose 402 declares erc20ApprovalGasSponsoring only. */
    sponsoredAccept: (amount: string) => ({
      ...sandboxAccept(stack().services, amount),
      extra: { assetTransferMethod: 'permit2', gasSponsoring: 'erc20ApprovalGasSponsoring' },
    }),
  }
}

export type ApprovalBuyer = Awaited<ReturnType<ReturnType<typeof approvalKit>['newBuyer']>>
