/**
 * Splits `budget` lines among lists that want `wants[i]` lines each: every list gets at least one line while the
 * budget lasts, then lines go in order of priority (first list first) up to what each wants. A list that gets fewer
 * lines than it wants shows "… n more" in its last one.
 */
export function allocateRows(budget: number, wants: number[]): number[] {
  const rows = wants.map(() => 0)
  let left = Math.max(0, budget)
  for (let i = 0; i < wants.length && left > 0; i++) {
    rows[i] = 1
    left--
  }
  for (let i = 0; i < wants.length && left > 0; i++) {
    const more = Math.min(left, Math.max(0, wants[i]! - rows[i]!))
    rows[i]! += more
    left -= more
  }
  return rows
}

/**
 * The items a list of `rows` lines shows, and how many are left out (for "… n more" on the last line). `items` may be
 * the first of a longer list of `total` (a page): those not loaded count as left out too. No lines: no items and
 * nothing to say (the panel's title gives the count).
 */
export function visibleItems<T>(items: T[], rows: number, total = items.length): { shown: T[]; hidden: number } {
  if (rows <= 0) return { shown: [], hidden: 0 }
  const all = Math.max(total, items.length)
  const shown = all <= rows ? items : items.slice(0, Math.max(0, rows - 1))
  return { shown, hidden: all - shown.length }
}
