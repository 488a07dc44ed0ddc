/**
 * `import 'svc/register'` (first, before the x402 packages) or `node --import svc/register app.js`: makes this
 * process work with the sandbox as the official x402 packages are written in their READMEs.
 * - every `*.localhost` name resolves to 127.0.0.1, for Node's global `fetch`, `node:http`/`node:https` and axios
 *   (so `http://weather.dev.localhost:4020` is reachable as it is from curl);
 * - `@x402/evm` knows the sandbox USDC as the default asset of `eip155:845320402`: buyers' spend controls accept it,
 *   sellers can price routes `'$0.01'`, and `{ amount, asset }` prices get their EIP-712 domain.
 */
import { resolveLocalhostSubdomains } from './localhost-dns.js'
import { registerSandboxUsdc } from './x402-sandbox-usdc.js'

resolveLocalhostSubdomains()
registerSandboxUsdc()
