/** mulberry32: a tiny seeded PRNG, so a run's cell order can be replayed from its seed. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

/** Fisher-Yates with the given random source; returns a new array. */
export function shuffled<T>(items: readonly T[], random: () => number): T[] {
  const a = [...items]
  for (let i = a.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1))
    ;[a[i], a[j]] = [a[j]!, a[i]!]
  }
  return a
}

/**
 * Repeats interleaved across cells (A B C, then A B C again), each round in its own
 * shuffled order so no cell always runs first or right after the same neighbour.
 */
export function interleavedOrder<T>(cells: readonly T[], repeats: number, seed: number): { cell: T; repeat: number }[] {
  return blockOrder(
    cells.map((c) => [c]),
    repeats,
    seed,
  )
}

/**
 * The same with cells in blocks (a now cell and its then twin): every round shuffles the
 * blocks and, inside each, its cells, so the cells of a block run next to each other in a
 * fresh order each round (a randomized block: the pair shares the machine's moment). Blocks
 * of one draw exactly what interleavedOrder always drew: a seed replays the same order.
 */
export function blockOrder<T>(blocks: readonly (readonly T[])[], repeats: number, seed: number): { cell: T; repeat: number }[] {
  const random = seededRandom(seed)
  const order: { cell: T; repeat: number }[] = []
  for (let r = 1; r <= repeats; r++) for (const block of shuffled(blocks, random)) for (const cell of shuffled(block, random)) order.push({ cell, repeat: r })
  return order
}
