/**
 * The code blocks of README sections, each marked with the file a test writes it to:
 * `<!-- readme-test: buyer.ts -->` on the line before the fence.
 */
export type ReadmeBlock = { file: string; code: string }

/** The text of the `## title` section, up to the next `## ` heading. */
export function readmeSection(markdown: string, title: string): string {
  const start = markdown.indexOf(`\n## ${title}\n`)
  if (start < 0) throw new Error(`README has no section "## ${title}"`)
  const next = markdown.indexOf('\n## ', start + 1)
  return markdown.slice(start, next < 0 ? undefined : next)
}

/** Every fenced block of `section`; a block without a marker is reported in `unmarked` (its first line). */
export function readmeBlocks(section: string): { blocks: ReadmeBlock[]; unmarked: string[] } {
  const blocks: ReadmeBlock[] = []
  const unmarked: string[] = []
  for (const match of section.matchAll(/(?:<!-- readme-test: (\S+) -->\n)?```[a-z]*\n([\s\S]*?)```/g)) {
    const [, file, code] = match
    if (file) blocks.push({ file, code: code! })
    else unmarked.push(code!.split('\n')[0]!)
  }
  return { blocks, unmarked }
}

/** The first fenced block after the heading `heading` (any level) of another README, e.g. an x402 package's. */
export function blockAfterHeading(markdown: string, heading: string): string {
  const start = markdown.indexOf(`${heading}\n`)
  if (start < 0) throw new Error(`no heading "${heading}"`)
  const match = /```[a-z]*\n([\s\S]*?)```/.exec(markdown.slice(start))
  if (!match) throw new Error(`no code block after "${heading}"`)
  return match[1]!
}
