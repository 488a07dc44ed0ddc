import type { SandboxChain } from '../sandbox-chain.js'

/**
 * Whether `chain` cannot judge a payment now: it is restarting, or its RPC does not answer (Anvil died and its exit
 * was not seen yet).
 */
export const chainDown = async (chain: SandboxChain): Promise<boolean> =>
  chain.restarting ||
  (await chain.client.getChainId().then(
    () => false,
    () => true,
  ))

/**
 * `judge`'s answer, or 'chain-down' (the caller answers 503 with Retry-After) when `chain` could not judge the payment:
 * it is restarting, or `judge` refused or failed while the chain was down. Never a refusal the chain's absence caused.
 */
export async function judgedOn<Answer>(
  chain: SandboxChain,
  judge: () => Promise<Answer>,
  accepted: (answer: Answer) => boolean,
): Promise<Answer | 'chain-down'> {
  if (chain.restarting) return 'chain-down'
  try {
    const answer = await judge()
    if (accepted(answer) || !(await chainDown(chain))) return answer
  } catch (error) {
    if (!(await chainDown(chain))) throw error
  }
  return 'chain-down'
}
