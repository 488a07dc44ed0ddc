import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, expect, test } from 'vitest'
import { checkDist } from './check-dist.js'

const dist = mkdtempSync(join(tmpdir(), 'svc-dist-'))
afterAll(() => rmSync(dist, { recursive: true, force: true }))

test('the docs check finds a missing anchor and a resource from another host, and passes what resolves', () => {
  mkdirSync(join(dist, 'reference', 'cli'), { recursive: true })
  mkdirSync(join(dist, 'assets', 'chunks'), { recursive: true })
  writeFileSync(
    join(dist, 'index.html'),
    '<h2 id="questions">Q</h2><a href="#questions">q</a><a href="/reference/config.html#svc-port">port</a>',
  )
  writeFileSync(
    join(dist, 'reference', 'config.html'),
    '<span id="svc-port"></span><a href="./cli/#up">up</a><a href="https://x402.org/#x">out</a>',
  )
  writeFileSync(join(dist, 'reference', 'cli', 'index.html'), '<h2 id="up">up</h2>')
  expect(checkDist(dist)).toEqual({ pages: 3, problems: [] })

  writeFileSync(
    join(dist, 'get-started.html'),
    '<a href="./reference/config.html#svc-prot">typo</a><img src="https://cdn.example/a.png">',
  )
  writeFileSync(join(dist, 'assets', 'chunks', 'theme.js'), 'fetch("https://analytics.example/collect")')
  writeFileSync(join(dist, 'assets', 'style.css'), '@font-face{src:url(https://fonts.example/inter.woff2)}')
  expect(checkDist(dist).problems.sort()).toEqual([
    'assets/chunks/theme.js: https://analytics.example/collect',
    'assets/style.css: loads https://fonts.example/inter.woff2',
    'get-started.html: loads https://cdn.example/a.png',
    'get-started.html: no anchor for href="./reference/config.html#svc-prot"',
  ])
})
