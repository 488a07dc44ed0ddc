/**
 * Where two texts first differ, as "line N: <made> … , committed …", to point the developer at the change.
 * `made` names how the expected text came about (`compiled`, `generated`).
 */
export function firstDifference(expected: string, actual: string, made: string): string {
  const a = expected.split('\n')
  const b = actual.split('\n')
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    if (a[i] !== b[i]) {
      const clip = (line: string | undefined) => (line === undefined ? '<end of file>' : line.slice(0, 120))
      return `line ${i + 1}: ${made} ${JSON.stringify(clip(a[i]))}, committed ${JSON.stringify(clip(b[i]))}`
    }
  }
  return 'identical'
}
