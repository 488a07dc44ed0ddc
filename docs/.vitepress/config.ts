import { existsSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { defineConfig } from 'vitepress'

const docs = fileURLToPath(new URL('..', import.meta.url))

/** The guide's pages in reading order, by the reader's task; a page not written yet is left out of the sidebar. */
export const guide: [link: string, text: string][] = [
  ['/get-started', 'Get started'],
  ['/buy', 'Pay as a buyer'],
  ['/sell', 'Sell an API'],
  ['/schemes', 'Schemes'],
  ['/escrow', 'Escrow: pay after delivery'],
  ['/extensions', 'Extensions'],
  ['/testing', 'Test with svc'],
  ['/ci', 'CI in any language'],
  ['/sandbox-tools', 'Snapshots, time and faults'],
  ['/base-sepolia', 'The Base Sepolia twin'],
  ['/server', 'Run a server'],
  ['/postgres', 'PostgreSQL and a team Sandbox'],
  ['/dashboard', 'The dashboard'],
  ['/architecture', 'How svc is built'],
  ['/troubleshooting', 'Troubleshooting'],
  ['/benchmarks', 'Benchmarks'],
]

/** The reference pages, generated from the code (`npm run docs:gen`). */
export const reference: [link: string, text: string][] = [
  ['/reference/cli/', 'CLI'],
  ['/reference/api', 'Control plane API'],
  ['/reference/config', 'Environment and flags'],
  ['/reference/ready-line', 'The ready line'],
  ['/reference/seed', 'The seed file'],
  ['/reference/errors', 'Errors and reasons'],
]

const exists = ([link]: [string, string]) => existsSync(`${docs}${link.endsWith('/') ? `${link}index` : link}.md`)
const items = (pages: [string, string][]) => pages.filter(exists).map(([link, text]) => ({ link, text }))

// Built offline: no CDN, fonts, analytics or social icons (those load from iconify); search is local (minisearch).
export default defineConfig({
  title: 'svc',
  description: 'A self-hosted x402 sandbox: chain, facilitator, control plane and paid gateway on one machine.',
  cleanUrls: false,
  lastUpdated: false,
  srcExclude: ['**/_*.md'],
  markdown: { theme: { light: 'github-light', dark: 'github-dark' } },
  themeConfig: {
    search: { provider: 'local' },
    outline: { level: [2, 3] },
    nav: [
      { text: 'Guide', link: '/get-started' },
      { text: 'Reference', link: '/reference/cli/' },
      { text: 'Changelog', link: '/changelog' },
    ],
    sidebar: [
      { text: 'Guide', items: items(guide) },
      { text: 'Reference', items: items(reference) },
    ],
  },
})
