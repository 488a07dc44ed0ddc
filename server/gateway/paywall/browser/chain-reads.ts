import { type Address, createPublicClient, erc20Abi, type Transport } from 'viem'
import { formatUnits } from '../price.js'

/** USDC and ETH of `address`, for the page: read through svc's RPC (demo wallet) or the person's wallet. */
export async function balancesOf(
  transport: Transport,
  usdc: { address: string; decimals: number },
  address: Address,
): Promise<{ usdc: bigint; eth: bigint; text: string }> {
  const client = createPublicClient({ transport })
  const [usdcBase, wei] = await Promise.all([
    client.readContract({
      address: usdc.address as Address,
      abi: erc20Abi,
      functionName: 'balanceOf',
      args: [address],
    }),
    client.getBalance({ address }),
  ])
  const eth = formatUnits(wei.toString(), 18)
  const shortEth = eth.includes('.') ? eth.slice(0, eth.indexOf('.') + 5).replace(/\.?0+$/, '') : eth
  return {
    usdc: usdcBase,
    eth: wei,
    text: `${formatUnits(usdcBase.toString(), usdc.decimals)} USDC · ${shortEth} ETH`,
  }
}
