// The golden vectors of tests/data/, shared with the Python tests (see
// tests/data/make_golden_vectors.py, which writes them).

import { readFileSync } from 'node:fs';

export function golden(name) {
  return JSON.parse(readFileSync(new URL(`../data/${name}`, import.meta.url), 'utf8'));
}

const NONFINITE = { NaN: NaN, Infinity: Infinity, '-Infinity': -Infinity };

/** A value of the vectors: a number, null, or "NaN" / "Infinity" / "-Infinity". */
export function decode(value) {
  return typeof value === 'string' ? NONFINITE[value] : value;
}
