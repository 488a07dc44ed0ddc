import { createInterface } from 'node:readline'
import { Writable } from 'node:stream'
import { UsageError } from '../core/errors.js'
import type { Io } from './output.js'

/** Everything on stdin, for `--password-stdin`: the first line, without its line break. */
export async function readStdinLine(io: Io): Promise<string> {
  let text = ''
  for await (const chunk of io.stdin) text += String(chunk)
  return text.split(/\r?\n/)[0] ?? ''
}

/** Asks for a secret on the terminal without echoing it; refuses when stdin is not a terminal. */
export async function promptSecret(io: Io, question: string, hint: string): Promise<string> {
  if (!io.stdin.isTTY) throw new UsageError(hint)
  let muted = false
  const output = new Writable({
    write(chunk, _encoding, done) {
      if (!muted) io.stderr.write(String(chunk))
      done()
    },
  })
  const lines = createInterface({ input: io.stdin, output, terminal: true })
  try {
    const answer = new Promise<string>((resolve) => lines.question(question, resolve))
    muted = true
    return await answer
  } finally {
    lines.close()
    io.stderr.write('\n')
  }
}
