/**
 * docs/server.md, run: its key block and its `svc serve` block with bash (the paths moved to a
 * temporary directory, port 4020 to a free one, `svc` to this checkout's), its readiness curl against that svc, and
 * the Caddy site checked against the command (the proxy reaches svc where it listens, from an address svc trusts).
 */
import { execFileSync, spawn } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import { afterAll, expect, test } from 'vitest'
import { docBlock, pageOf, pageText } from '../docs/blocks.js'

const root = fileURLToPath(new URL('../..', import.meta.url))
/** The page of `svc serve` (the one holding ready.sh), whose prose quotes the answers. */
const section = pageOf('ready.sh')
const block = (file: string) => docBlock(file).code
const caddyfile = docBlock('Caddyfile').code

const dir = mkdtempSync(join(tmpdir(), 'svc-serve-readme-'))
/** The docs' paths, here. */
const local = (code: string) =>
  code.replaceAll('/etc/svc', join(dir, 'etc')).replaceAll('/var/lib/svc', join(dir, 'data'))
let stopServe = async () => {}
afterAll(async () => {
  await stopServe()
  rmSync(dir, { recursive: true, force: true })
})

test('docs: the keys, svc serve and its readiness check run as written', async () => {
  execFileSync('bash', ['-euo', 'pipefail', '-c', local(block('keys.sh'))])
  for (const key of ['jwt.key', 'wallet.key', 'admin.token'])
    expect(readFileSync(join(dir, 'etc', key), 'utf8')).toMatch(/^[0-9a-f]{64}\n$/)

  const serve = local(block('serve.sh'))
    .replace(
      /^svc serve/,
      `exec ${JSON.stringify(process.execPath)} ${JSON.stringify(join(root, 'bin/svc.js'))} serve --json`,
    )
    .replace('--port 4020', '--port 0')
  const child = spawn('bash', ['-euo', 'pipefail', '-c', serve], { stdio: ['ignore', 'pipe', 'pipe'] })
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve))
  stopServe = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM')
    await exited
  }
  let stderr = ''
  child.stderr.on('data', (chunk) => (stderr += chunk))
  const ready = await new Promise<Record<string, any>>((resolve, reject) => {
    createInterface({ input: child.stdout }).once('line', (line) => resolve(JSON.parse(line)))
    void exited.then((code) => reject(new Error(`svc serve exited with ${code}: ${stderr}`)))
  })
  // The proxy terminates TLS on 443: the URLs svc hands out say so.
  expect(ready.control_url).toBe('https://api.pay.example.com')
  expect(ready.sandbox_control_url).toBe('https://sandbox.pay.example.com')
  expect(ready.sandbox_platform_domain).toBe('dev.pay.example.com')

  const answer = execFileSync(
    'bash',
    ['-euo', 'pipefail', '-c', block('ready.sh').replace(':4020', `:${ready.port}`)],
    {
      encoding: 'utf8',
    },
  )
  expect(JSON.parse(answer)).toEqual({ status: 'ready', database: 'ok', chain: 'ok' })
  // The page quotes the answer it gets.
  expect(section).toContain(`\`${answer.trim()}\``)

  await stopServe()
  expect(await exited).toBe(0)
}, 60_000)

test('docs: the Caddy site proxies to where svc serve listens, from an address it trusts, and checks /readyz', () => {
  const serve = block('serve.sh')
  const host = /--host (\S+)/.exec(serve)?.[1]
  const port = /--port (\d+)/.exec(serve)?.[1]
  expect(caddyfile).toContain(`reverse_proxy ${host}:${port} {`)
  expect(/--trust-proxy (\S+)/.exec(serve)?.[1]).toBe(host)
  expect(caddyfile).toContain('health_uri /readyz')
  // Its sites cover the gateways of both environments and the control planes (api. and sandbox. are under *.).
  const domain = /--platform-domain (\S+)/.exec(serve)?.[1]
  expect(caddyfile.split('\n')[0]).toBe(`*.${domain}, *.dev.${domain} {`)
})

test('docs: postgres.md opens with what the CLI does: svc up has no --database-url, svc serve has', () => {
  const svc = (command: string) =>
    execFileSync(process.execPath, [join(root, 'bin/svc.js'), command, '--help'], { encoding: 'utf8' })
  const option = /^\s+--database-url\b/m
  expect(svc('up')).not.toMatch(option)
  expect(svc('serve')).toMatch(option)
  // Its first paragraph, the answer to "run on PostgreSQL", with links to both commands' options.
  const lead = pageText('docs/postgres.md').split('\n\n')[1]!
  expect(lead).toContain('`svc up` keeps its data in SQLite')
  expect(lead).toContain('has no `--database-url`')
  expect(lead).toContain('`svc serve --database-url postgres://…`')
  expect(lead).toContain('(./reference/cli/up)')
  expect(lead).toContain('(./reference/cli/serve)')
})
