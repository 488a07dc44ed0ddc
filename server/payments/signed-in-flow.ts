import { type Attempt, failed, type FlowContext, type PaymentOutcome } from './attempt.js'
import { upstreamTarget } from '../upstream/index.js'

/** A wallet that paid within the endpoint's sign-in-with-x window: the upstream's answer, nothing settled. */
export async function serveSignedIn(
  { faults, proxy }: FlowContext,
  { api, request, resource }: Attempt,
): Promise<PaymentOutcome> {
  const answer = await faults.forward(
    api,
    proxy,
    request,
    upstreamTarget(api.upstream_base_url, resource.path, resource.query),
  )
  if (!answer.ok) return failed(answer.status, answer.error)
  if (answer.status < 500) return { type: 'pass-through', upstream: answer }
  answer.body.resume()
  answer.done()
  return failed(502, `the upstream answered ${answer.status}`)
}
