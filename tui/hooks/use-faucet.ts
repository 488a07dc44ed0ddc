import { useCallback, useEffect, useRef, useState } from 'react'
import type { SvcClient } from '../../sdk/client.js'
import { describeError, loginHint } from '../errors.js'
import type { FaucetState } from '../model.js'

const idle: FaucetState = { status: 'idle' }

/**
 * The faucet key: `fund()` sends ETH and USDC to `address` (POST /dev/faucet, asset `all`) and calls `onDone` after,
 * so the balances refresh. A press while funding is ignored. The state belongs to the session (`client`): after a
 * login change the line is idle again, and a call still running for the previous session is not shown.
 */
export function useFaucet(
  client: SvcClient | undefined,
  address: string | undefined,
  onDone: () => void,
): { faucet: FaucetState; fund(): void } {
  const [state, setState] = useState<{ client: SvcClient | undefined; faucet: FaucetState }>({ client, faucet: idle })
  /** The session whose faucet call is running. */
  const busy = useRef<SvcClient | undefined>(undefined)
  const mounted = useRef(true)
  useEffect(() => {
    mounted.current = true
    return () => void (mounted.current = false)
  }, [])

  // The latest session and address, even for a key pressed before Ink hands the new `fund` to its input handler.
  const latest = useRef({ client, address, onDone })
  latest.current = { client, address, onDone }

  const fund = useCallback(() => {
    const { client, address, onDone } = latest.current
    if (!client) return setState({ client, faucet: { status: 'failed', error: loginHint } })
    if (busy.current === client) return
    if (!address)
      return setState({
        client,
        faucet: { status: 'failed', error: 'no Sandbox wallet yet: wait for the wallet panel to load' },
      })
    busy.current = client
    setState({ client, faucet: { status: 'funding', address } })
    const settle = (faucet: FaucetState) => {
      if (busy.current === client) busy.current = undefined
      // A state of another session's client is never shown (see below).
      if (mounted.current) setState((current) => (current.client === client ? { client, faucet } : current))
    }
    client.sandbox.faucet(address, 'all').then(
      (result) => {
        settle({ status: 'funded', result: { funded: result.funded, transactions: result.transactions } })
        onDone()
      },
      (error: unknown) => settle({ status: 'failed', error: describeError(error) }),
    )
  }, [])

  return { faucet: state.client === client ? state.faucet : idle, fund }
}
