/**
 * After `vitepress build docs` (`npm run docs:build`): every link to an anchor (`href="page.html#frag"`, `#frag`)
 * resolves to an element with that id on its page (VitePress checks pages, not anchors), and the site loads nothing
 * from another host (no CDN, font, analytics or icon service: the docs are read offline).
 */
import { readdirSync, readFileSync } from 'node:fs'
import { join, posix } from 'node:path'
import { pathToFileURL } from 'node:url'
import { root } from './blocks.js'

/** What is wrong with the built site in `dist`: anchors that do not resolve, resources from another host. */
export function checkDist(dist: string): { pages: number; problems: string[] } {
  const files = readdirSync(dist, { recursive: true, encoding: 'utf8' }).map((file) => file.split('\\').join('/'))
  const pages = files.filter((file) => file.endsWith('.html'))
  const text = (file: string) => readFileSync(join(dist, file), 'utf8')
  const ids = new Map(
    pages.map((page) => [page, new Set([...text(page).matchAll(/\sid="([^"]+)"/g)].map((m) => m[1]))]),
  )

  const problems: string[] = []
  for (const page of pages) {
    const html = text(page).replace(/<script[\s\S]*?<\/script>/g, '')
    for (const [, href] of html.matchAll(/\shref="([^"]*#[^"]*)"/g)) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(href!)) continue
      const [path, frag] = href!.split('#') as [string, string]
      if (frag === '') continue
      let target = path === '' ? page : path.startsWith('/') ? path.slice(1) : posix.join(posix.dirname(page), path)
      if (target === '' || target.endsWith('/')) target += 'index.html'
      if (!target.endsWith('.html')) target += '.html'
      if (!ids.get(target)?.has(decodeURIComponent(frag))) problems.push(`${page}: no anchor for href="${href}"`)
    }
    // What a browser loads by itself: src=, <link href=>, CSS url(). Links a reader clicks (<a href>) may go anywhere.
    for (const [, url] of html.matchAll(/\ssrc="(https?:[^"]*|\/\/[^"]*)"/g)) problems.push(`${page}: loads ${url}`)
    for (const [, tag] of html.matchAll(/(<link\s[^>]*>)/g))
      if (/href="(https?:|\/\/)/.test(tag!)) problems.push(`${page}: loads ${tag}`)
  }
  for (const css of files.filter((file) => file.endsWith('.css')))
    for (const [, url] of text(css).matchAll(/url\(\s*['"]?((?:https?:)?\/\/[^'")]*)/g))
      problems.push(`${css}: loads ${url}`)
  // Script code may fetch: the only absolute URLs allowed in the bundle are XML namespaces, licence comments, a base
  // for relative URLs (`http://a.com`) and VitePress's icon fallback for `socialLinks`, which config.ts does not set.
  // A page's own chunk (`*.md.*.js`) and the search index hold the page's text, URLs of its examples included.
  const allowed = /^https?:\/\/(www\.w3\.org\/|a\.com$|api\.iconify\.design\/|github\.com\/|vuejs\.org|vitepress\.dev)/
  const code = (file: string) => file.endsWith('.js') && !/\.md\.[\w-]+(\.lean)?\.js$|@localSearchIndex/.test(file)
  for (const js of files.filter(code)) {
    for (const [url] of text(js).matchAll(/https?:\/\/[^\s"'`)\\]+/g))
      if (!allowed.test(url)) problems.push(`${js}: ${url}`)
  }
  return { pages: pages.length, problems }
}

if (import.meta.url === pathToFileURL(process.argv[1]!).href) {
  const { pages, problems } = checkDist(join(root, 'docs', '.vitepress', 'dist'))
  for (const problem of problems) console.error(problem)
  console.log(`docs: ${pages} pages checked, ${problems.length} problems`)
  if (problems.length) process.exitCode = 1
}
