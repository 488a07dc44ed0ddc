/**
 * docs/troubleshooting.md names every message svc throws on its way up: in server/start, the `up`, `serve`, `exec`
 * and detached-sandbox commands, Anvil's start, the database's address and the port check. Each message's longest
 * literal part (the text between its `${…}`) must be on the page, so a new startup error without its entry fails here.
 */
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { expect, test } from 'vitest'
import { root } from './blocks.js'

const files = [
  ...readdirSync(join(root, 'server/start')).map((file) => `server/start/${file}`),
  ...['up', 'serve', 'exec', 'detached'].map((name) => `cli/commands/${name}.ts`),
  'cli/up-options.ts',
  'cli/detach-start.ts',
  'cli/sandbox-env.ts',
  'cli/settings.ts',
  'cli/config.ts',
  'cli/session-target.ts',
  ...readdirSync(join(root, 'chain/anvil')).map((file) => `chain/anvil/${file}`),
  'core/http.ts',
  'server/db/database-url.ts',
  'server/db/sqlite/driver.ts',
]

/** Messages no user meets from the command line, each with why. */
const skip: Record<string, string> = {
  'startSvc: mode must be up, serve or server, not': "a programmer's error of startSvc's caller, not a user's",
  'expected a JSON body (Content-Type: application/json)': 'an HTTP answer (400), on Errors and reasons',
}

/** The literal text of the string or template literal at `start` (a quote), `${…}` (nested templates too) as `\0`. */
function literalAt(text: string, start: number): string {
  const quote = text[start]!
  let out = ''
  let i = start + 1
  while (i < text.length && text[i] !== quote) {
    if (text[i] === '\\') {
      out += text[i + 1]
      i += 2
    } else if (quote === '`' && text.startsWith('${', i)) {
      let depth = 1
      i += 2
      while (depth > 0 && i < text.length) {
        if (text[i] === '`')
          i += literalAt(text, i).length + 2 // a nested template, skipped whole
        else {
          if (text[i] === '{') depth++
          else if (text[i] === '}') depth--
          i++
        }
      }
      out += '\0'
    } else out += text[i++]
  }
  return out
}

function messages(): { file: string; literal: string }[] {
  const found: { file: string; literal: string }[] = []
  for (const file of files) {
    let text: string
    try {
      text = readFileSync(join(root, file), 'utf8')
    } catch {
      continue
    }
    for (const match of text.matchAll(/(?:SvcError|UsageError|Error)\(\s*[`']/g)) {
      // The message's longest stretch of literal text between its `${…}`.
      const parts = literalAt(text, match.index + match[0].length - 1).split('\0')
      const literal = parts.reduce((a, b) => (b.trim().length > a.trim().length ? b : a), '').trim()
      if (literal.length >= 12) found.push({ file, literal })
    }
  }
  return found
}

test('every startup message is on the troubleshooting page', () => {
  const page = readFileSync(join(root, 'docs/troubleshooting.md'), 'utf8').replace(/\s+/g, ' ')
  const all = messages()
  expect(all.length).toBeGreaterThan(30)
  const missing = all
    .filter(({ literal }) => !Object.keys(skip).some((skipped) => literal.startsWith(skipped)))
    .filter(({ literal }) => !page.includes(literal.replace(/\s+/g, ' ')))
    .map(({ file, literal }) => `${file}: ${literal}`)
  expect(missing).toEqual([])
})
