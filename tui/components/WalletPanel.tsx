import { Box, Text } from 'ink'
import { memo } from 'react'
import { loginHints } from '../errors.js'
import { fitHex, formatEth, formatUsdc } from '../format.js'
import type { FaucetState, Loadable, WalletData } from '../model.js'
import { FaucetLine } from './FaucetLine.js'
import { ErrorLine, Line, Panel, TitleLine } from './Panel.js'

export type WalletPanelProps = {
  loggedIn: boolean
  /** The wallet and its balances. Only `address` and `private_key_redacted` are read: the private key is never shown. */
  wallet: Loadable<WalletData>
  faucet: FaucetState
  width: number
}

const title = 'Sandbox wallet'

/**
 * The seller's Sandbox wallet in three lines: the address (and the redacted key when it fits), the USDC and ETH
 * balances, and the faucet's state. Without a session, one line saying how to log in.
 */
export const WalletPanel = memo(function WalletPanel({ loggedIn, wallet, faucet, width }: WalletPanelProps) {
  if (!loggedIn) return <Panel title={title} summary={loginHints} width={width} />
  const { data, error } = wallet
  const room = width - title.length - 2
  const address = data ? fitHex(data.wallet.address, room) : undefined
  const key =
    data && address && room - address.length >= 26 ? `key ${data.wallet.private_key_redacted} (hidden)` : undefined
  return (
    <Box flexDirection="column">
      <TitleLine title={title}>
        {address ? <Text bold>{address}</Text> : <Text dimColor>{error ? 'unavailable' : 'loading…'}</Text>}
        {key ? <Text dimColor>{`  ${key}`}</Text> : null}
      </TitleLine>
      {error ? (
        <ErrorLine message={error} />
      ) : (
        <Line>
          {data ? (
            <>
              <Text color="green">{formatUsdc(data.balances.usdc_base)}</Text>
              <Text>{`  ·  ${formatEth(data.balances.eth_wei)}`}</Text>
            </>
          ) : (
            <Text dimColor>balances…</Text>
          )}
        </Line>
      )}
      <FaucetLine faucet={faucet} />
    </Box>
  )
})
