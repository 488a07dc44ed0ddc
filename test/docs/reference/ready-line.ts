/**
 * docs/reference/ready-line.md, from cli/ready-line.ts: what `svc up --json` prints once svc is ready, each key with an
 * anchor (`#control-url`, `#seed-apis-direct-url`). Its two samples are checked against real lines: the `svc up --json`
 * one by test/cli/up.test.ts, the `svc up --detach` one by test/cli/detached.test.ts (same keys, same types).
 */
import { type ReadyLine, readyLineFields, readyLineModeFields, readyLineSeedFields } from '../../../cli/ready-line.js'
import type { DetachedRecord } from '../../../cli/detach-start.js'
import type { Pages } from '../generators.js'
import { anchor, cell, generatedNote, jsonType } from '../reference-table.js'

/** What `svc up --json` prints, as on a machine with the default port and data dir. */
export const readySample: ReadyLine = {
  control_url: 'http://api.localhost:4020',
  sandbox_control_url: 'http://sandbox.localhost:4020',
  platform_domain: 'localhost',
  sandbox_platform_domain: 'dev.localhost',
  gateway_port: 4020,
  direct_gateway_base: 'http://127.0.0.1:4020/gateway',
  rpc_url: 'http://127.0.0.1:46719',
  facilitator_url: 'http://127.0.0.1:33033',
  chain_manager_url: 'http://127.0.0.1:35333',
  chain_id: 845320402,
  network: 'eip155:845320402',
  usdc: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913',
  twins: [],
  data_dir: '/home/you/.svc',
}

/** What `svc up --detach --seed demo` prints. */
const detachedSample = {
  ...readySample,
  seed: {
    email: 'demo@svc.test',
    password: 'demo-password-402',
    jwt: 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJl',
    keys: [{ name: 'demo automation', environment: 'development', key: 'svc_sandbox_3Jf8qWz0Xk2LmN5pR7tV9yBc' }],
    apis: [
      {
        slug: 'weather',
        environment: 'development',
        gateway_url: 'http://weather.dev.localhost:4020',
        direct_url: 'http://127.0.0.1:4020/gateway/weather.dev.localhost',
        created: true,
        endpoints_created: 3,
      },
    ],
  },
  name: 'default',
  pid: 41230,
  log: '/home/you/.config/svc/sandboxes/default.log',
  buyer: {
    address: '0x5B38Da6a701c568545dCfcB03FcB875f56beddC4',
    private_key: '0x8f2a55949038a9610f50fb23b5883af3b4ecb3c3bb792cbcefbd1542c692be63',
  },
} satisfies DetachedRecord['ready'] & Omit<DetachedRecord, 'ready' | 'started'>

/** The type of a key path in the detached sample (`seed.apis[].created` → boolean). */
function typeAt(path: string): string {
  let value: unknown = detachedSample
  for (const part of path.split('.')) {
    const list = part.endsWith('[]')
    value = (value as Record<string, unknown>)[list ? part.slice(0, -2) : part]
    if (list) value = (value as unknown[])[0]
  }
  return jsonType(value)
}

export function render(): Pages {
  const row = (key: string, ...cells: string[]) => `| ${anchor(key)}\`${key}\` | ${cells.map(cell).join(' | ')} |`
  const page = [
    '# The ready line',
    '',
    generatedNote('test/docs/reference/ready-line.ts', 'cli/ready-line.ts'),
    '',
    'When svc is ready, `svc up --json` prints one line of JSON on stdout, and nothing else goes there: the ready line.',
    'A CI job or a script waits for that line and reads its URLs and ports from it, so `--port 0` (a free port) needs',
    'no guessing. Progress and log lines go to stderr; when svc cannot start, stdout stays empty, stderr has',
    '`{"error": "…"}` and svc exits non-zero.',
    '',
    'The same line, with more keys, is what other commands print:',
    '',
    '- `svc up --json --seed FILE`: the keys below, then `seed`, what the seed made.',
    '- `svc up --detach` (always JSON): the keys, `seed` with `--seed`, then `name`, `pid`, `log` and `buyer`.',
    '- `svc status --json`: `name`, `status`, `pid`, `log`, the keys, `seed`, `buyer` and `env`, for the sandbox',
    '  `svc up --detach` started.',
    '- `svc exec` and `svc status --env` give the same facts as environment variables (`SVC_RPC_URL`, …).',
    '',
    '`svc serve --json` prints a ready line of its own, with other keys (`listen`, `port`, `sandbox_chain`, …).',
    '',
    '## Example',
    '',
    '`svc up --json`, here spread over several lines (svc prints it on one):',
    '',
    '<!-- readme-output: ready line -->',
    '```json',
    JSON.stringify(readySample, null, 2),
    '```',
    '',
    '## Every key',
    '',
    '| Key | Type | What it holds |',
    '| --- | --- | --- |',
    ...readyLineFields.map(([key, what]) => row(key, jsonType(readySample[key]), what)),
    '',
    '## Keys of some modes',
    '',
    '| Key | Type | In | What it holds |',
    '| --- | --- | --- | --- |',
    ...readyLineModeFields.map(([key, where, what]) => row(key, typeAt(key), where, what)),
    '',
    "## The seed's keys",
    '',
    '| Key | Type | What it holds |',
    '| --- | --- | --- |',
    ...readyLineSeedFields.map(([key, what]) => row(key, typeAt(key), what)),
    '',
    '`svc up --detach --seed demo`, spread over several lines:',
    '',
    '<!-- readme-output: ready line, detached -->',
    '```json',
    JSON.stringify(detachedSample, null, 2),
    '```',
    '',
  ]
  return { 'docs/reference/ready-line.md': page.join('\n') }
}
