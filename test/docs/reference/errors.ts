/**
 * docs/reference/errors.md: how svc's errors look (HTTP, a refused payment's 402, the CLI), every SvcError code
 * (core/errors.ts `errorCodes`) and every reason code svc answers, by scheme (core/fault-reasons.ts, core/reasons.ts),
 * each row with an anchor `#<code, _ → ->` (`#not-found`, `#invalid-exact-evm-payload-authorization-valid-before`).
 */
import { errorCodes } from '../../../core/errors.js'
import { reasonGroups } from '../../../core/reasons.js'

/** `not_found` → `not-found`: the row's anchor. */
export const anchorOf = (code: string): string => code.replace(/_/g, '-')

/** A table cell: the first letter up (not svc's or x402's own lower-case names), `|` escaped. */
const cell = (text: string): string =>
  (/^(svc|x402)\b/.test(text) ? text : text.charAt(0).toUpperCase() + text.slice(1)).replace(/\|/g, '\\|')

const row = (cells: string[]): string => `| ${cells.join(' | ')} |`
const codeCell = (code: string): string => `<span id="${anchorOf(code)}"></span>\`${code}\``

export function render(): Record<string, string> {
  const reasons = reasonGroups.reduce((sum, group) => sum + group.reasons.length, 0)
  const lines = [
    '# Errors and reasons',
    '',
    `What svc answers when something goes wrong, and what to do about it: the ${errorCodes.length} error codes of svc`,
    `itself, then the ${reasons} reason codes a refused payment carries, by scheme. Every code has its own anchor:`,
    '`/reference/errors#<code with - for _>`, e.g. [`#not-found`](#not-found) or',
    '[`#invalid-exact-evm-payload-authorization-valid-before`](#invalid-exact-evm-payload-authorization-valid-before).',
    '',
    '## How errors look',
    '',
    '**Over HTTP** (the control plane, the faucet, the facilitator, the gateway), every error is JSON',
    '`{"error": "<message>"}` with the HTTP status of its [code](#error-codes); the wire carries the message, not the',
    'code. A `429` or `503` also sends `Retry-After` (seconds). An error svc did not expect is `500',
    '{"error": "internal error"}`, its stack in svc\'s log.',
    '',
    '**A refused payment** is a `402` from the gateway. Its `PAYMENT-REQUIRED` header (base64 JSON, what x402 clients',
    'read) and its JSON body carry the offer again and an `error` saying why, e.g. `the payment is invalid:',
    "invalid_exact_evm_payload_authorization_valid_before`. The body adds the scheme's reason fields:",
    '',
    '- `invalidReason` and `invalidMessage` when the facilitator refused the payment at verify;',
    '- `errorReason` and `errorMessage` when the settlement failed; the `PAYMENT-RESPONSE` header then holds the',
    '  settle response (`success: false`).',
    '',
    'The facilitator itself (`POST /verify`, `POST /settle`) answers `{"isValid": false, "invalidReason", "invalidMessage",',
    '"payer"}` or `{"success": false, "errorReason", "errorMessage", "transaction", "network"}`, as x402 defines them;',
    '`400` for a malformed body, `503` with `chain_unavailable` while the chain restarts. The [reasons](#reasons) below',
    'are the values of `invalidReason` and `errorReason`. `svc pay` prints the `error` on its one line.',
    '',
    '**The CLI** prints one line on stderr, `svc: <message>` (with `--json`: `{"error": "<message>"}`), and exits with:',
    '',
    '| Exit code | When |',
    '| --- | --- |',
    '| `0` | it worked |',
    '| `1` | an error: the server, the chain or a payment said no (every code below but `usage_error`) |',
    '| `2` | a usage error: an unknown option, a wrong argument, a bad seed file (`usage_error`); `svc exec` when svc could not start |',
    '',
    "`svc exec` otherwise exits with its command's own exit code. **The SDK** and the MCP tools throw (or answer) the same",
    '`SvcError`, with `code`, `status` and `message`; an answer of the control plane is an `SvcApiError` (`status` 0 when',
    'svc could not be reached).',
    '',
    '## Error codes',
    '',
    "The `code` of an `SvcError` (core/errors.ts), the HTTP status the server answers with and the CLI's exit code.",
    '',
    row(['Code', 'HTTP', 'CLI exit', 'Meaning']),
    row(['---', '---', '---', '---']),
    ...errorCodes.map((entry) =>
      row([
        codeCell(entry.code),
        entry.status === undefined ? "the answer's" : String(entry.status),
        String(entry.exit),
        cell(entry.meaning),
      ]),
    ),
    '',
    '## Reasons',
    '',
    "The reason codes of a refused payment (`invalidReason`, `errorReason`, or inside the 402's `error`), by scheme: what",
    'went wrong, and what the buyer or the seller does about it. `invalidMessage` / `errorMessage` often say more.',
  ]
  for (const group of reasonGroups) {
    lines.push(
      '',
      `### ${group.title}`,
      '',
      group.about,
      '',
      row(['Code', 'Meaning', 'What to do']),
      row(['---', '---', '---']),
      ...group.reasons.map((reason) => row([codeCell(reason.code), cell(reason.meaning), cell(reason.fix)])),
    )
  }
  return { 'docs/reference/errors.md': `${lines.join('\n')}\n` }
}
