/**
 * The browser harness itself (test/helpers/browser.ts): Debian's Chromium starts headless, every request a page makes
 * is recorded, including one that leaves svc's hosts, and screenshots land in test-artifacts/ at both widths.
 */
import { existsSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { type BrowserHandle, isSvcHost, openBrowser, openPage, screenshots } from '../helpers/browser.js'

let server: Server
let port: number
let handle: BrowserHandle

beforeAll(async () => {
  server = createServer((request, response) => {
    if (request.url === '/data') return response.end('{"ok":true}')
    response.setHeader('content-type', 'text/html')
    // The second fetch goes to a host that is not svc's: the request is recorded, and aborted before it leaves.
    response.end(`<!doctype html><title>t</title><h1 id="h">loading</h1><script>
      fetch('/data').then((r) => r.json()).then((j) => { document.getElementById('h').textContent = 'ok ' + j.ok })
      fetch('http://elsewhere.example/x', { mode: 'no-cors' }).catch(() => {})
    </script>`)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  port = (server.address() as AddressInfo).port
  handle = await openBrowser()
})

afterAll(async () => {
  await handle?.close()
  server?.close()
})

test('a page in Chromium: its requests recorded, the foreign one found, screenshots at two widths', async () => {
  const recorded = await openPage(handle.browser)
  await recorded.page.goto(`http://app.dev.localhost:${port}/`)
  await expect.poll(() => recorded.page.textContent('#h')).toBe('ok true')
  await expect.poll(() => recorded.requests.length).toBeGreaterThanOrEqual(3)
  expect(recorded.requests.map((r) => new URL(r.url).pathname)).toEqual(expect.arrayContaining(['/', '/data', '/x']))
  expect(recorded.requestsOffHosts(isSvcHost).map((r) => r.url)).toEqual(['http://elsewhere.example/x'])
  const paths = await screenshots(recorded.page, 'harness')
  expect(existsSync(paths.desktop) && existsSync(paths.phone)).toBe(true)
  await recorded.close()
})
