import { formatUnits } from 'viem'
import { usdcDecimals } from '../core/sandbox-usdc.js'

/** `0x1234…abcd`: a long hex string (address, transaction hash, key) shortened to its first and last 4 digits. */
export function shortHex(hex: string, digits = 4): string {
  if (!/^0x[0-9a-fA-F]+$/.test(hex) || hex.length <= 2 + digits * 2 + 1) return hex
  return `${hex.slice(0, 2 + digits)}…${hex.slice(-digits)}`
}

/** The whole address when `width` characters allow it, else {@link shortHex}. */
export function fitHex(hex: string, width: number): string {
  return hex.length <= width ? hex : shortHex(hex)
}

/** Groups the whole part by thousands and keeps at most `maxDecimals` decimals (cut, not rounded, so 0.0000009 never shows as 0.000001). */
function decimal(value: string, maxDecimals: number): string {
  const [whole = '0', fraction = ''] = value.split('.')
  const grouped = whole.replace(/\B(?=(\d{3})+(?!\d))/g, ',')
  const kept = fraction.slice(0, maxDecimals).replace(/0+$/, '')
  return kept ? `${grouped}.${kept}` : grouped
}

/** A quantity in base units (decimal or `0x` hex, as the chain helpers answer) as whole units: `0x3b9aca00`, 6 → `1,000`. */
export function formatUnitsOf(quantity: string | bigint, decimals: number, maxDecimals = decimals): string {
  return decimal(formatUnits(BigInt(quantity), decimals), maxDecimals)
}

/** USDC base units as USDC for a panel, grouped by thousands: `10000` → `0.01 USDC`, `0x3b9aca00` → `1,000 USDC`. */
export function formatUsdc(base: string | bigint): string {
  return `${formatUnitsOf(base, usdcDecimals)} USDC`
}

/** Wei as ETH, at most 4 decimals: `0x8ac7230489e80000` → `10 ETH`. */
export function formatEth(wei: string | bigint): string {
  return `${formatUnitsOf(wei, 18, 4)} ETH`
}

/** A price option: USDC for the sandbox USDC (`asset` equal to `usdc`, any case), atomic units of anything else. */
export function formatPrice(accept: { asset: string; amount: string }, usdc: string): string {
  return accept.asset.toLowerCase() === usdc.toLowerCase() ? formatUsdc(accept.amount) : `${accept.amount} units`
}

/** Time left until `expiresAt`: `4m07s`, `1h02m`, `2d03h`, `expired`; `-` without an expiry. */
export function formatTtl(expiresAt: string | null, now: number): string {
  if (!expiresAt) return '-'
  const left = Math.floor((Date.parse(expiresAt) - now) / 1000)
  if (!(left > 0)) return 'expired'
  const pad = (n: number) => String(n).padStart(2, '0')
  if (left < 60) return `${left}s`
  if (left < 3600) return `${Math.floor(left / 60)}m${pad(left % 60)}s`
  if (left < 86_400) return `${Math.floor(left / 3600)}h${pad(Math.floor((left % 3600) / 60))}m`
  return `${Math.floor(left / 86_400)}d${pad(Math.floor((left % 86_400) / 3600))}h`
}

/** svc's clock offset (`svc time advance`) in the unit that reads best: `+45s`, `+15m`, `+2h`, `+2h30m`, `+8d`, `+1d06h`. */
export function formatOffset(seconds: number): string {
  const sign = seconds < 0 ? '-' : '+'
  const s = Math.round(Math.abs(seconds))
  const pad = (n: number) => String(n).padStart(2, '0')
  if (s < 60) return `${sign}${s}s`
  if (s < 3600) return `${sign}${Math.floor(s / 60)}m${s % 60 ? `${pad(s % 60)}s` : ''}`
  if (s < 86_400)
    return `${sign}${Math.floor(s / 3600)}h${Math.floor((s % 3600) / 60) ? `${pad(Math.floor((s % 3600) / 60))}m` : ''}`
  return `${sign}${Math.floor(s / 86_400)}d${Math.floor((s % 86_400) / 3600) ? `${pad(Math.floor((s % 86_400) / 3600))}h` : ''}`
}

/** `HH:MM:SS` in local time. */
export function formatClock(iso: string): string {
  const date = new Date(iso)
  if (Number.isNaN(date.getTime())) return '--:--:--'
  const pad = (n: number) => String(n).padStart(2, '0')
  return `${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}`
}

/** Cuts `text` to `width` columns with a trailing ellipsis; pads it to `width` when `pad`. */
export function fit(text: string, width: number, pad = false): string {
  if (width <= 0) return ''
  const cut = text.length > width ? `${text.slice(0, Math.max(0, width - 1))}…` : text
  return pad ? cut.padEnd(width) : cut
}

/** The first of `choices` (the fullest first) that fits `width` columns; else the last one, cut to `width`. */
export function fitFirst(choices: readonly string[], width: number): string {
  const fitting = choices.find((choice) => choice.length <= width)
  return fitting ?? fit(choices.at(-1) ?? '', width)
}
