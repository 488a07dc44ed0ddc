import { readFileSync, writeFileSync } from 'node:fs'
import type { Command } from 'commander'
import { defaultHosts, isSlug } from '../../core/hosts.js'
import { SvcError, UsageError } from '../../core/errors.js'
import { action, addCommand, type CliContext } from '../context.js'

export const beginMarker = '# svc begin'
export const endMarker = '# svc end'
const address = '127.0.0.1'

/** The kit's control-plane names, then `{slug}.dev.localhost` of each slug. */
export function hostNames(slugs: string[]): string[] {
  const hosts = defaultHosts(0)
  return [hosts.controlHost, hosts.sandboxControlHost, ...slugs.map((slug) => `${slug}.${hosts.sandboxPlatformDomain}`)]
}

/**
 * `text` (a hosts file) with one `# svc begin` … `# svc end` block holding `names`, plus the names the block already
 * had: running it again changes nothing, and a later call with other slugs keeps the earlier ones.
 */
export function withHostsBlock(text: string, names: string[]): string {
  const lines = text.split(/\r?\n/)
  if (lines.at(-1) === '') lines.pop()
  const begin = lines.indexOf(beginMarker)
  const end = begin === -1 ? -1 : lines.indexOf(endMarker, begin)
  if (begin !== -1 && end === -1) throw new SvcError(`"${beginMarker}" without "${endMarker}": fix the file by hand`)
  const previous = lines
    .slice(begin + 1, Math.max(end, begin + 1))
    .filter((line) => line.trim() && !line.trim().startsWith('#'))
    .flatMap((line) => line.trim().split(/\s+/).slice(1))
  const all = [...new Set([...names, ...previous])]
  const block = [beginMarker, ...all.map((name) => `${address} ${name}`), endMarker]
  const next = end === -1 ? [...lines, ...block] : [...lines.slice(0, begin), ...block, ...lines.slice(end + 1)]
  return `${next.join('\n')}\n`
}

function readHostsFile(path: string): string {
  try {
    return readFileSync(path, 'utf8')
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return ''
    throw new SvcError(`cannot read ${path} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`)
  }
}

/** `svc hosts`: the /etc/hosts lines of the kit's names, printed or written between markers. */
export function registerHosts(program: Command, ctx: CliContext) {
  addCommand(program, 'hosts', 'the /etc/hosts lines for api.localhost, sandbox.localhost and {slug}.dev.localhost')
    .option('--api <slug...>', 'also {slug}.dev.localhost for these API slugs')
    .option('--write', 'write them into /etc/hosts between "# svc begin" and "# svc end" (idempotent)')
    .option('--file <path>', 'write into this file instead of /etc/hosts (implies --write)')
    .action(
      action<{ api?: string[]; write?: boolean; file?: string }>(ctx, async (call) => {
        const slugs = call.options.api ?? []
        const bad = slugs.find((slug) => !isSlug(slug))
        if (bad !== undefined) throw new UsageError(`--api: "${bad}" is not a slug (a lower-case DNS label)`)
        const names = hostNames(slugs)
        const path = call.options.file ?? (call.options.write ? '/etc/hosts' : undefined)
        if (path === undefined) {
          const lines = names.map((name) => `${address} ${name}`)
          if (call.out.isJson) return call.out.json({ address, names, lines })
          for (const line of [beginMarker, ...lines, endMarker]) call.out.line(line)
          return
        }
        const before = readHostsFile(path)
        const after = withHostsBlock(before, names)
        const changed = after !== before
        if (changed) {
          try {
            writeFileSync(path, after)
          } catch (error) {
            const code = (error as NodeJS.ErrnoException).code
            throw new SvcError(
              `cannot write ${path} (${code ?? (error as Error).message})${code === 'EACCES' || code === 'EPERM' ? ': try sudo' : ''}`,
            )
          }
        }
        if (call.out.isJson) return call.out.json({ path, address, names, changed })
        call.out.line(changed ? `wrote ${names.join(', ')} to ${path}` : `${path} already has ${names.join(', ')}`)
      }),
    )
}
