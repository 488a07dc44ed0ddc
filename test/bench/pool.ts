/** Runs `task` over `items` with at most `concurrency` in flight; returns per-item latencies (ms) and the wall time. */
export async function runPool<T, R>(
  items: readonly T[],
  concurrency: number,
  task: (item: T) => Promise<R>,
): Promise<{ results: R[]; latencies: number[]; wallMs: number }> {
  const results: R[] = new Array(items.length)
  const latencies: number[] = new Array(items.length)
  let next = 0
  const started = performance.now()
  async function worker() {
    while (next < items.length) {
      const index = next++
      const t0 = performance.now()
      results[index] = await task(items[index]!)
      latencies[index] = performance.now() - t0
    }
  }
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, worker))
  return { results, latencies, wallMs: performance.now() - started }
}

export function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN
}

export const round = (value: number, digits = 1) => Number(value.toFixed(digits))
