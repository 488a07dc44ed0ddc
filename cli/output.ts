/** Where a command writes. `isTTY` decides colors; tests pass their own writers. */
export type Writer = { write(chunk: string): unknown; isTTY?: boolean | undefined }
export type Io = {
  stdout: Writer
  stderr: Writer
  stdin: NodeJS.ReadableStream & { isTTY?: boolean | undefined }
}

export const processIo: Io = { stdout: process.stdout, stderr: process.stderr, stdin: process.stdin }

/**
 * A reader that goes away early (`svc settlements | head -1`) closes the pipe: what svc still writes there is
 * dropped quietly (EPIPE), and the command ends as it would have, with its own exit code. Any other write error
 * stays an error.
 */
export function dropWritesToClosedPipes(streams: NodeJS.WriteStream[] = [process.stdout, process.stderr]): void {
  for (const stream of streams)
    stream.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code !== 'EPIPE') throw error
    })
}

type Cell = string | number | boolean | null | undefined

/** Human output (lines, tables, `label: value` fields) or one JSON document with `--json`. */
export type Output = {
  /** True with `--json`. */
  readonly isJson: boolean
  /** Prints `value` as the one JSON document of the command. */
  json(value: unknown): void
  line(text?: string): void
  /** Columns padded to their widest cell; `empty` is printed instead of a table without rows. */
  table(headers: string[], rows: Cell[][], empty: string): void
  /** Aligned `label  value` lines. */
  fields(entries: [string, Cell][]): void
  bold(text: string): string
  dim(text: string): string
  green(text: string): string
  yellow(text: string): string
}

/**
 * Colors only when stdout is a terminal and NO_COLOR is unset or empty (https://no-color.org), and only bold, dim,
 * green and yellow.
 */
export function colorEnabled(io: Io, env: NodeJS.ProcessEnv): boolean {
  return io.stdout.isTTY === true && !env.NO_COLOR && env.TERM !== 'dumb'
}

const show = (cell: Cell): string => (cell === null || cell === undefined || cell === '' ? '-' : String(cell))

export function createOutput(io: Io, env: NodeJS.ProcessEnv, isJson: boolean): Output {
  const color = !isJson && colorEnabled(io, env)
  const paint = (open: number, close: number) => (text: string) =>
    color ? `\u001b[${open}m${text}\u001b[${close}m` : text
  const bold = paint(1, 22)
  const dim = paint(2, 22)
  const write = (text: string) => io.stdout.write(`${text}\n`)

  return {
    isJson,
    json: (value) => write(JSON.stringify(value, null, 2)),
    line: (text = '') => write(text),
    table(headers, rows, empty) {
      if (rows.length === 0) return write(dim(empty))
      const cells = rows.map((row) => row.map(show))
      const widths = headers.map((header, i) => Math.max(header.length, ...cells.map((row) => row[i]!.length)))
      const render = (row: string[]) =>
        row
          .map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i]!)))
          .join('  ')
          .trimEnd()
      write(bold(render(headers)))
      for (const row of cells) write(render(row))
    },
    fields(entries) {
      const width = Math.max(...entries.map(([label]) => label.length))
      for (const [label, value] of entries) write(`${dim(label.padEnd(width))}  ${show(value)}`)
    },
    bold,
    dim,
    green: paint(32, 39),
    yellow: paint(33, 39),
  }
}
