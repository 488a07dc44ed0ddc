import { useCallback, useEffect, useRef, useState } from 'react'
import type { SvcClient } from '../../../sdk/client.js'
import { describeError, loginHint } from '../errors.js'
import type { FaucetState } from '../model.js'

/**
 * The faucet key: `fund()` sends ETH and USDC to `address` (POST /dev/faucet, asset `all`) and calls `onDone` after,
 * so the balances refresh. A press while funding is ignored.
 */
export function useFaucet(client: SvcClient | undefined, address: string | undefined, onDone: () => void): { faucet: FaucetState; fund(): void } {
  const [faucet, setFaucet] = useState<FaucetState>({ status: 'idle' })
  const busy = useRef(false)
  const mounted = useRef(true)
  useEffect(() => {
    mounted.current = true
    return () => void (mounted.current = false)
  }, [])

  const fund = useCallback(() => {
    if (busy.current) return
    if (!client) return setFaucet({ status: 'failed', error: loginHint })
    if (!address) return setFaucet({ status: 'failed', error: 'no Sandbox wallet yet: wait for the wallet panel to load' })
    busy.current = true
    setFaucet({ status: 'funding', address })
    client.sandbox.faucet(address, 'all').then(
      (result) => {
        busy.current = false
        if (!mounted.current) return
        setFaucet({ status: 'funded', result: { funded: result.funded, transactions: result.transactions } })
        onDone()
      },
      (error: unknown) => {
        busy.current = false
        if (mounted.current) setFaucet({ status: 'failed', error: describeError(error) })
      },
    )
  }, [client, address, onDone])

  return { faucet, fund }
}
