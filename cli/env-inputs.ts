/**
 * The SVC_* variables svc reads itself, outside a commander option's default: each with what it does and its default
 * (empty: none). The variables an option's default comes from are named in that option's help text (`(SVC_PORT)`);
 * the ones svc sets for your commands are {@link import('./sandbox-env.js').sandboxEnvNames}. The configuration
 * reference (docs/reference/config.md, test/docs/reference/config.ts) is these three lists, and its test fails on a
 * variable the code reads that none of them names.
 */
export const envInputs = [
  [
    'SVC_BASE_URL',
    "the control plane the CLI's commands (and `svc mcp`) talk to, as `--base-url`",
    "`http://api.localhost:4020`; `http://sandbox.localhost:4020` with `--sandbox` or a `svc_sandbox_` key; the svc `svc up` runs, or the saved login's, when there is one",
  ],
  [
    'SVC_API_KEY',
    'the API key the commands send, as `--api-key`; it wins over the JWT where a command takes either, and `svc mcp` takes nothing else',
    '',
  ],
  [
    'SVC_JWT',
    'the session JWT the commands send, as `--jwt`',
    'the one `svc login` saved (sent only to the svc it was made on)',
  ],
  [
    'SVC_ENVIRONMENT',
    '`production` or `development` (the Sandbox): the environment the commands act on; anything else is a usage error',
    "the API key's (`svc_sandbox_` / `svc_live_`), else the control-plane host's (`sandbox.` / `api.`), else the saved login's, else `production`",
  ],
  ['SVC_SANDBOX', '`1` or `true`: the same as `SVC_ENVIRONMENT=development` and `--sandbox`', ''],
  [
    'SVC_ADMIN_TOKEN',
    "the admin token (at least 24 characters) of a server's whole-sandbox routes: snapshots, time travel, faults, the chain's restart, the mail outbox. `svc serve` takes it as its token (`--admin-token-file` wins); the CLI's `svc snapshot(s)`, `svc revert`, `svc time`, `svc fault`, `svc chain restart` and `svc outbox` send it to a server. `svc up` needs none: it trusts callers on its own machine",
    'none: on `svc serve` those routes answer 403',
  ],
  [
    'SVC_JWT_SECRET',
    "`svc serve`'s key of session JWTs, 32 bytes as 64 hex digits or base64 (`--jwt-secret-file` wins); processes sharing one PostgreSQL database need the same one",
    "the data dir's own, made on first start",
  ],
  [
    'SVC_WALLET_KEY',
    "`svc serve`'s key that encrypts the Sandbox wallets at rest, 32 bytes (`--wallet-key-file` wins)",
    "the data dir's own, made on first start",
  ],
  [
    'SVC_OFFER_RECEIPT_KEY',
    "`svc serve`'s seed of signed offers and receipts, 32 bytes (`--offer-receipt-key-file` wins)",
    "the data dir's own, made on first start",
  ],
  [
    'SVC_EVM_PRIVATE_KEY',
    "the buyer's private key (0x and 64 hex digits) `svc pay` and `svc channels close` sign with; `svc exec` gives its command a funded buyer's (`svc status --env` prints it)",
    '',
  ],
  [
    'SVC_RPC_URL',
    "the Sandbox chain's RPC `svc pay` asks, as `--rpc-url` (a Permit2 payment then signs an EIP-2612 permit the gateway sponsors); `svc exec` gives it to its command",
    'what the svc serving the URL says',
  ],
  [
    'SVC_ANVIL_BIN',
    'the Anvil binary `svc up`, `svc exec` and `svc serve` run: a path, or a command name looked up on PATH; it wins over everything else',
    'the `@foundry-rs/anvil-<platform>-<arch>` package of this machine, else `anvil` on PATH, else `~/.foundry/bin/anvil`',
  ],
  [
    'SVC_CONFIG_DIR',
    'where the CLI keeps the saved login (`config.json`), the record of the svc `svc up` runs (`running.json`: the other commands find it there) and the records and logs of detached sandboxes (`sandboxes/`); give concurrent CI jobs of one user each its own',
    '`$XDG_CONFIG_HOME/svc`, else `~/.config/svc`',
  ],
] as const satisfies readonly (readonly [name: string, what: string, fallback: string])[]

/** Variables only svc's own tests set (not for users): read by the code, listed so, and left out of the reference. */
export const testEnvInputs = [
  ['SVC_PAUSE_AT', 'crash tests: stop at a named step of a change that must survive `kill -9` (core/pause-point.ts)'],
] as const satisfies readonly (readonly [name: string, what: string])[]
