import { setFlagsFromString } from 'node:v8'

/** V8's own `--semi-space-growth-factor`. */
const defaultGrowthFactor = 2

/**
 * How far V8 lets the old generation grow past what a full collection left alive before the next one, in percent
 * (V8 picks a factor of up to 4× by itself on a machine with plenty of memory).
 */
const heapGrowingPercent = 40

/**
 * V8's heap for a long-running `svc up`, set at run time (both flags are read each time V8 sizes its heap, unlike the
 * heap's maximum sizes):
 * - the old generation grows at most 40% past what a full collection left alive: under 16 paying buyers svc's RSS
 *   peaked at 154–158 MB instead of 170–206 MB (20% gave 145–157 MB for about 1 point more of its CPU in garbage
 *   collection, 5.6% against 4.6%, and up to 0.7 ms more CPU per payment in A/B runs);
 * - while svc starts, the young generation is held at its starting size. Start-up (the bundle, migrations, the seed)
 *   allocates fast enough that V8 doubles it up to 2 × 16 MB, which it then keeps for good: about 15 MB of resident
 *   memory an idle sandbox never uses (idle 116 → 104 MB). Held for good, it tripled the time in garbage collection
 *   under paid load (5% → 17% of svc's CPU), so the returned function lets it grow again once svc is ready.
 */
export function tuneHeapWhileStarting(): () => void {
  setFlagsFromString(`--heap-growing-percent=${heapGrowingPercent}`)
  setFlagsFromString('--semi-space-growth-factor=1')
  return () => setFlagsFromString(`--semi-space-growth-factor=${defaultGrowthFactor}`)
}
