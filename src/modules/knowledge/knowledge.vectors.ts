/**
 * The chunks' vectors (`knowledge_chunks.embedding`, a `bytea` of float32 values, big-endian as
 * PostgreSQL's float4send writes them): how they are written and read, compared (cosine), and
 * kept in memory for the bases small enough to rank whole.
 *
 * Why packed bytes and not the design's `real[]` (pgvector is missing here): a `real[]` is
 * written as a text literal (9 digits a value, parsed by PostgreSQL) and read as `array_send`
 * (8 bytes a value, hex over the text protocol); the bytes are written as they are (a Buffer
 * parameter goes in binary) and read at 4 bytes a value (bench/results/kb.md: ingestion with
 * vectors and the read of a base's vectors several times faster).
 * Why in process and not in SQL: cosine over `real[]` in SQL (unnest) costs about 0.45 ms a
 * row at 1536 dimensions; the bytes decoded here and dotted with the question cost a few
 * microseconds each.
 */

/** Vectors of one length, one after another, as `embedding` holds each (float32, big-endian). */
export function packVectors(vectors: readonly ArrayLike<number>[]): Buffer {
  const width = vectors.length > 0 ? vectors[0].length : 0;
  const bytes = Buffer.allocUnsafe(vectors.length * width * 4);
  vectors.forEach((vector, row) => {
    if (vector.length !== width) throw new Error(`vectors of ${vector.length} and ${width} dimensions`);
    for (let i = 0, at = row * width * 4; i < width; i++, at += 4) bytes.writeFloatBE(vector[i], at);
  });
  return bytes;
}

const LITTLE_ENDIAN = new Uint8Array(Uint16Array.of(1).buffer)[0] === 1;

/** Float32 values from packed big-endian bytes (a multiple of 4 long), into `into` at `offset`. */
export function unpackInto(bytes: Buffer, into: Float32Array, offset = 0): void {
  const target = new Uint8Array(into.buffer, into.byteOffset + offset * 4, bytes.length);
  target.set(bytes);
  // swap32 turns the big-endian values into the machine's order (little-endian: x86, ARM) in place.
  if (LITTLE_ENDIAN) Buffer.from(target.buffer, target.byteOffset, target.length).swap32();
}

/** A vector from `embedding`'s bytes; null for bytes that are no whole number of float32 values. */
export function unpackVector(bytes: Buffer): Float32Array | null {
  if (bytes.length === 0 || bytes.length % 4 !== 0) return null;
  const vector = new Float32Array(bytes.length / 4);
  unpackInto(bytes, vector);
  return vector;
}

/** Scales `vector` in place to length 1 (cosine is then a dot product); a zero vector stays zero. */
export function normalise(vector: Float32Array): Float32Array {
  let sum = 0;
  for (let i = 0; i < vector.length; i++) sum += vector[i] * vector[i];
  const norm = Math.sqrt(sum);
  if (norm > 0 && Number.isFinite(norm)) for (let i = 0; i < vector.length; i++) vector[i] /= norm;
  return vector;
}

/** Vectors of one base, normalised, one after another in `values`. */
export interface VectorSet {
  ids: Int32Array;
  dimensions: number;
  values: Float32Array;
}

/** The `count` ids of `set` nearest `question` (normalised), nearest first (the lower id first among equals). */
export function nearest(set: VectorSet, question: Float32Array, count: number): number[] {
  if (question.length !== set.dimensions || set.ids.length === 0 || count <= 0) return [];
  const { dimensions, values, ids } = set;
  // The best `count` so far, best first: a row below the worst of them costs one comparison
  // (a sort of every row's index cost more than the dot products at 10,000 rows).
  const best: { id: number; score: number }[] = [];
  const better = (score: number, id: number, than: { id: number; score: number }) => score > than.score || (score === than.score && id < than.id);
  for (let row = 0, at = 0; row < ids.length; row++, at += dimensions) {
    let dot = 0;
    for (let i = 0; i < dimensions; i++) dot += values[at + i] * question[i];
    const id = ids[row];
    if (best.length === count && !better(dot, id, best[count - 1])) continue;
    let place = best.length === count ? count - 1 : best.length;
    while (place > 0 && better(dot, id, best[place - 1])) place--;
    if (best.length === count) best.pop();
    best.splice(place, 0, { id, score: dot });
  }
  return best.map((entry) => entry.id);
}

/** One set of vectors from rows of ids and `embedding` bytes; rows of other lengths than `dimensions` are left out. */
export function vectorSet(rows: { id: number; v: Buffer | null }[], dimensions: number): VectorSet {
  const ids: number[] = [];
  const values = new Float32Array(rows.length * dimensions);
  for (const row of rows) {
    if (!row.v || row.v.length !== dimensions * 4) continue;
    const at = ids.length * dimensions;
    unpackInto(row.v, values, at);
    normalise(values.subarray(at, at + dimensions));
    ids.push(row.id);
  }
  return { ids: Int32Array.from(ids), dimensions, values: values.subarray(0, ids.length * dimensions) };
}

/** One set of vectors from pages of ids and their vectors' bytes one after another; a page whose bytes do not match its ids is left out. */
export function vectorSetOfPages(pages: { ids: number[]; bytes: Buffer }[], dimensions: number): VectorSet {
  const whole = pages.filter((page) => page.bytes.length === page.ids.length * dimensions * 4);
  const count = whole.reduce((sum, page) => sum + page.ids.length, 0);
  const ids = new Int32Array(count);
  const values = new Float32Array(count * dimensions);
  let row = 0;
  for (const page of whole) {
    ids.set(page.ids, row);
    unpackInto(page.bytes, values, row * dimensions);
    row += page.ids.length;
  }
  for (let at = 0; at < values.length; at += dimensions) normalise(values.subarray(at, at + dimensions));
  return { ids, dimensions, values };
}

/** Reciprocal rank fusion's constant (Cormack, Clarke and Büttcher, 2009; Elasticsearch's and OpenSearch's default). */
export const RRF_K = 60;

/** Each id's fused score, Σ 1 / (RRF_K + rank) over the rankings it is in (rank from 1), best first. */
export function fuse(rankings: readonly (readonly number[])[]): { id: number; score: number }[] {
  const scores = new Map<number, number>();
  for (const ranking of rankings) ranking.forEach((id, rank) => scores.set(id, (scores.get(id) ?? 0) + 1 / (RRF_K + rank + 1)));
  return [...scores].map(([id, score]) => ({ id, score })).sort((a, b) => b.score - a.score || a.id - b.id);
}

/**
 * The vectors of the bases ranked whole, by base, each with the version of the base it was read
 * at (knowledge.search.ts: a signature of its documents that ingestion and deletes change),
 * the least recently used dropped past `budgetBytes`.
 */
export class VectorCache {
  private readonly entries = new Map<number, { version: string; set: VectorSet; bytes: number }>();
  private bytes = 0;
  /** Loads in flight, so that concurrent searches of a base read it once. */
  private readonly loading = new Map<string, Promise<VectorSet>>();

  constructor(readonly budgetBytes: number) {}

  async get(baseId: number, version: string, load: () => Promise<VectorSet>): Promise<VectorSet> {
    const entry = this.entries.get(baseId);
    if (entry && entry.version === version) {
      this.entries.delete(baseId);
      this.entries.set(baseId, entry);
      return entry.set;
    }
    const key = `${baseId}:${version}`;
    let pending = this.loading.get(key);
    if (!pending) {
      pending = load().finally(() => this.loading.delete(key));
      this.loading.set(key, pending);
      pending.then((set) => this.put(baseId, version, set)).catch(() => {});
    }
    return pending;
  }

  private put(baseId: number, version: string, set: VectorSet): void {
    const old = this.entries.get(baseId);
    if (old) {
      this.entries.delete(baseId);
      this.bytes -= old.bytes;
    }
    const bytes = set.values.byteLength + set.ids.byteLength;
    if (bytes > this.budgetBytes) return;
    this.entries.set(baseId, { version, set, bytes });
    this.bytes += bytes;
    for (const [id, entry] of this.entries) {
      if (this.bytes <= this.budgetBytes) break;
      this.entries.delete(id);
      this.bytes -= entry.bytes;
    }
  }
}
