/**
 * The docs' pictures: every image README.md and docs/**.md show (markdown `![alt](path)` and `<img src="path">`) is a
 * file, its path taken relative to its page (README's as `docs/images/…`), and docs/images/ holds exactly the PNGs
 * `npm run docs:screenshots` (test/docs/screenshots.ts) makes, so none is made by hand or left behind.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join, posix } from 'node:path'
import { describe, expect, test } from 'vitest'
import { docPages, root } from './blocks.js'
import { applyReverseVideo, screenshotFiles } from './screenshots.js'

/** The images a page's text shows (not inside a fence or inline code), as written. */
function imageRefs(text: string): string[] {
  const prose = text.replace(/^( *)(```+|~~~+)[^\n]*\n[\s\S]*?^\1\2[ \t]*$/gm, '').replace(/`[^`\n]*`/g, '')
  const markdown = [...prose.matchAll(/!\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+["'(][^)]*)?\)/g)].map((m) => m[1]!)
  const html = [...prose.matchAll(/<img\s[^>]*?\bsrc\s*=\s*["']([^"']+)["']/gi)].map((m) => m[1]!)
  return [...markdown, ...html]
}

/** Where `ref` on `page` points in the repository, or why it cannot be checked there. */
function target(page: string, ref: string): string {
  if (/^[a-z][a-z0-9+.-]*:|^\/\//i.test(ref))
    return `${ref} (not a file of the repository: the docs load nothing from elsewhere)`
  const path = decodeURI(ref.split(/[?#]/)[0]!)
  // VitePress serves docs/public/ at the site's root.
  return path.startsWith('/') ? posix.join('docs/public', path) : posix.join(posix.dirname(page), path)
}

describe('docs images', () => {
  test('every image a page shows exists, relative to its page', () => {
    const missing: string[] = []
    let count = 0
    for (const page of docPages()) {
      for (const ref of imageRefs(readFileSync(join(root, page), 'utf8'))) {
        count++
        const file = target(page, ref)
        if (!existsSync(join(root, file))) missing.push(`${page}: ${ref} → ${file}`)
      }
    }
    expect(missing).toEqual([])
    expect(count).toBeGreaterThan(0)
  })

  test('docs/images/ holds exactly the PNGs that `npm run docs:screenshots` writes', () => {
    const pngs = readdirSync(join(root, 'docs/images'))
      .filter((file) => file.endsWith('.png'))
      .map((file) => `docs/images/${file}`)
    expect(pngs.sort()).toEqual([...screenshotFiles].sort())
  })

  test('the page text scan finds markdown and <img> images, not ones in code', () => {
    const text = [
      '![The dashboard](./images/a.png "title")',
      '<img src="docs/images/b.png" width="300">',
      '`![not an image](x.png)`',
      '```md',
      '![in a fence](y.png)',
      '```',
    ].join('\n')
    expect(imageRefs(text)).toEqual(['./images/a.png', 'docs/images/b.png'])
  })

  test('reverse video (the dashboard key hints) becomes swapped colours ansi_up understands', () => {
    const on = applyReverseVideo('\x1b[0;1;7m\x1b[39m\x1b[49m q \x1b[0m quit')
    expect(on).toBe(
      '\x1b[0;1;7m\x1b[38;2;30;30;30;48;2;212;212;212m\x1b[39m\x1b[38;2;30;30;30;48;2;212;212;212m' +
        '\x1b[49m\x1b[38;2;30;30;30;48;2;212;212;212m q \x1b[0m\x1b[39;49m quit',
    )
    expect(applyReverseVideo('\x1b[36m\x1b[7mx\x1b[27m')).toBe(
      '\x1b[36m\x1b[7m\x1b[38;2;30;30;30;46mx\x1b[27m\x1b[36;49m',
    )
  })
})
