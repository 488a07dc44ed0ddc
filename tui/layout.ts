/**
 * Splits `budget` lines among lists that want `wants[i]` lines each: every list gets at least one line while the
 * budget lasts, then each gets up to its `reserve` (settlements are never pushed off screen by a long list of APIs),
 * then lines go in order of `priority` (list indexes, the first first; by default the lists' order) up to what each
 * wants. A list that gets fewer lines than it wants shows "… n more" in its last one.
 */
export function allocateRows(
  budget: number,
  wants: number[],
  { reserve = [], priority = wants.map((_, i) => i) }: { reserve?: number[]; priority?: number[] } = {},
): number[] {
  const rows = wants.map(() => 0)
  let left = Math.max(0, budget)
  const give = (i: number, upTo: number) => {
    const more = Math.min(left, Math.max(0, upTo - rows[i]!))
    rows[i]! += more
    left -= more
  }
  for (let i = 0; i < wants.length; i++) give(i, Math.min(1, wants[i]!))
  for (let i = 0; i < wants.length; i++) give(i, Math.min(reserve[i] ?? 0, wants[i]!))
  for (const i of [...priority, ...wants.keys()]) give(i, wants[i]!)
  return rows
}

/** What a list of `rows` lines shows: the items, how many are above them ("↑ n above") and below ("… n more"). */
export type ListWindow<T> = { shown: T[]; above: number; hidden: number }

/** Scrolling needs a line for "↑ n above", one for "… n more" and one for an item. */
const minScrollRows = 3

/**
 * How far a list of `rows` lines can scroll: to where its last loaded item shows. `total` counts items not loaded
 * (a page of a longer list): those stay "… n more".
 */
export function maxOffset(loaded: number, rows: number, total = loaded): number {
  const all = Math.max(total, loaded)
  if (rows < minScrollRows || all <= rows) return 0
  // At the end: the "↑ n above" line, the items, and "… n more" while some were not loaded.
  return Math.max(0, loaded - (rows - 1 - (loaded < all ? 1 : 0)))
}

/**
 * The items a list of `rows` lines shows from `offset` (the first item shown; clamped to {@link maxOffset}), and how
 * many are left out above and below. `items` may be the first of a longer list of `total` (a page): those not loaded
 * count as left out too. No lines: no items and nothing to say (the panel's title gives the count).
 */
export function scrollWindow<T>(items: T[], rows: number, total = items.length, offset = 0): ListWindow<T> {
  if (rows <= 0) return { shown: [], above: 0, hidden: 0 }
  const all = Math.max(total, items.length)
  if (all <= rows) return { shown: items, above: 0, hidden: all - items.length }
  const from = Math.min(Math.max(0, offset), maxOffset(items.length, rows, total))
  const room = rows - (from > 0 ? 1 : 0)
  const count = from + room >= all ? all - from : room - 1
  const shown = items.slice(from, from + Math.max(0, count))
  return { shown, above: from, hidden: all - from - shown.length }
}

/** {@link scrollWindow} from the top: the items shown and how many are left out. */
export function visibleItems<T>(items: T[], rows: number, total = items.length): { shown: T[]; hidden: number } {
  const { shown, hidden } = scrollWindow(items, rows, total)
  return { shown, hidden }
}
