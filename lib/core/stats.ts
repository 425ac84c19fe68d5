/**
 * Side-effect-free statistics for repeats (benchstat style). Results carry warnings
 * for the reader instead of throwing: too few samples, a wide spread.
 */

export interface Summary {
  n: number
  median: number
  min: number
  max: number
  mean: number
  /** Coefficient of variation: sample standard deviation / mean. */
  cv: number
  /** 95% confidence interval of the median (order statistics; exact binomial). */
  ci: [number, number]
  /** Actual coverage of `ci` (below 0.95 when n is too small for a 95% interval). */
  ciLevel: number
  warnings: string[]
}

/** CV above which a cell is reported as noisy. */
export const NOISY_CV = 0.05

export function median(xs: readonly number[]): number {
  return quantile(xs, 0.5)
}

/** Linear-interpolation quantile (type 7, as R and numpy default). */
export function quantile(xs: readonly number[], q: number): number {
  if (xs.length === 0) return NaN
  const s = [...xs].sort((a, b) => a - b)
  const pos = (s.length - 1) * q
  const lo = Math.floor(pos)
  const hi = Math.ceil(pos)
  return s[lo]! + (s[hi]! - s[lo]!) * (pos - lo)
}

function binomialCdf(k: number, n: number): number {
  // P(X <= k) for X ~ Bin(n, 1/2)
  let p = 0
  let c = 1
  for (let i = 0; i <= k; i++) {
    p += c
    c = (c * (n - i)) / (i + 1)
  }
  return p / 2 ** n
}

/**
 * Distribution-free CI of the median: the widest symmetric pair of order statistics
 * (x_(k), x_(n+1-k)) whose coverage is at least `level`; min..max when n is too small.
 */
export function medianCI(xs: readonly number[], level = 0.95): { ci: [number, number]; level: number } {
  const s = [...xs].sort((a, b) => a - b)
  const n = s.length
  if (n === 0) return { ci: [NaN, NaN], level: 0 }
  let k = 1
  // coverage of (x_(k), x_(n+1-k)) = 1 - 2 P(X <= k-1)
  while (k + 1 <= Math.floor((n + 1) / 2) && 1 - 2 * binomialCdf(k, n) >= level) k++
  return { ci: [s[k - 1]!, s[n - k]!], level: 1 - 2 * binomialCdf(k - 1, n) }
}

export function summarize(xs: readonly number[]): Summary {
  const n = xs.length
  const warnings: string[] = []
  if (n === 0) return { n, median: NaN, min: NaN, max: NaN, mean: NaN, cv: NaN, ci: [NaN, NaN], ciLevel: 0, warnings: ['no valid samples'] }
  const mean = xs.reduce((a, b) => a + b, 0) / n
  const sd = n > 1 ? Math.sqrt(xs.reduce((a, x) => a + (x - mean) ** 2, 0) / (n - 1)) : 0
  const cv = mean === 0 ? 0 : sd / mean
  const { ci, level } = medianCI(xs)
  if (n < 3) warnings.push(`only ${n} sample${n === 1 ? '' : 's'}: no spread can be judged`)
  if (level < 0.95) warnings.push(`n=${n} is too few for a 95% CI of the median (min..max covers ${Math.round(level * 100)}%)`)
  if (n > 1 && cv > NOISY_CV) warnings.push(`noisy: CV ${(cv * 100).toFixed(1)}% > ${NOISY_CV * 100}%`)
  return { n, median: median(xs), min: Math.min(...xs), max: Math.max(...xs), mean, cv, ci, ciLevel: level, warnings }
}

export interface MannWhitney {
  u: number
  /** Two-sided p-value (exact for small samples without ties, normal approximation otherwise). */
  p: number
  warnings: string[]
}

/** Two-sided Mann-Whitney U test, as benchstat uses to decide whether a delta is real. */
export function mannWhitney(a: readonly number[], b: readonly number[]): MannWhitney {
  const n1 = a.length
  const n2 = b.length
  const warnings: string[] = []
  if (n1 === 0 || n2 === 0) return { u: NaN, p: 1, warnings: ['a side has no samples'] }
  const all = [...a.map((v) => ({ v, g: 0 })), ...b.map((v) => ({ v, g: 1 }))].sort((x, y) => x.v - y.v)
  const ranks = new Array<number>(all.length)
  let tieTerm = 0
  for (let i = 0; i < all.length; ) {
    let j = i
    while (j + 1 < all.length && all[j + 1]!.v === all[i]!.v) j++
    const t = j - i + 1
    tieTerm += t ** 3 - t
    for (let k = i; k <= j; k++) ranks[k] = (i + j) / 2 + 1
    i = j + 1
  }
  const r1 = all.reduce((s, x, i) => (x.g === 0 ? s + ranks[i]! : s), 0)
  const u1 = r1 - (n1 * (n1 + 1)) / 2
  const u = Math.min(u1, n1 * n2 - u1)
  let p: number
  if (tieTerm === 0 && n1 + n2 <= 30) {
    p = Math.min(1, 2 * exactUCdf(u, n1, n2))
  } else {
    const n = n1 + n2
    const mu = (n1 * n2) / 2
    const sigma = Math.sqrt(((n1 * n2) / 12) * (n + 1 - tieTerm / (n * (n - 1))))
    const z = sigma === 0 ? 0 : (Math.abs(u1 - mu) - 0.5) / sigma
    p = Math.min(1, 2 * (1 - normalCdf(Math.max(0, z))))
  }
  if (n1 < 3 || n2 < 3) warnings.push(`n=${n1}+${n2}: too few samples for significance at α=0.05`)
  return { u, p, warnings }
}

/** P(U <= u) under H0 by counting rank arrangements (fine for n1 + n2 <= 30). */
function exactUCdf(u: number, n1: number, n2: number): number {
  // f[i][j][s]: ways i elements of A and j of B give U = s; computed with a rolling table.
  const memo = new Map<string, number>()
  const count = (i: number, j: number, s: number): number => {
    if (s < 0) return 0
    if (i === 0 || j === 0) return s === 0 ? 1 : 0
    const key = `${i},${j},${s}`
    const hit = memo.get(key)
    if (hit !== undefined) return hit
    const v = count(i - 1, j, s - j) + count(i, j - 1, s)
    memo.set(key, v)
    return v
  }
  let total = 0
  for (let s = 0; s <= Math.floor(u); s++) total += count(n1, n2, s)
  let all = 1
  for (let k = 1; k <= n1; k++) all = (all * (n2 + k)) / k
  return total / all
}

function normalCdf(z: number): number {
  // Abramowitz-Stegun 7.1.26 via erf
  const t = 1 / (1 + 0.3275911 * (z / Math.SQRT2))
  const y = 1 - ((((1.061405429 * t - 1.453152027) * t + 1.421413741) * t - 0.284496736) * t + 0.254829592) * t * Math.exp(-((z / Math.SQRT2) ** 2))
  return 0.5 * (1 + y)
}
