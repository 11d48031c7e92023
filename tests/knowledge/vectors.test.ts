import { MikroORM } from '@mikro-orm/postgresql';
import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { ormConfig } from '../../src/db/orm';
import { nearest, packVectors, unpackVector, vectorSet, vectorSetOfPages } from '../../src/modules/knowledge/knowledge.vectors';

/**
 * The chunks' vectors packed (`knowledge_chunks.embedding bytea`, float32 big-endian as
 * float4send writes them): read back exactly, and the vectors written as `real[]` before the
 * migration converted value for value.
 */
const EDGES = [0, -0, 1.5, -2.25, 0.1, Math.fround(1 / 3), 3.4028234663852886e38, -1.401298464324817e-45, 1.1754943508222875e-38];

describe('packed vectors', () => {
  it('read back exactly what was packed, float32 for float32, and refuse bytes of no whole values', () => {
    const vectors = [Float32Array.from(EDGES), Float32Array.from(EDGES.map((value) => -value))];
    const bytes = packVectors(vectors);
    expect(bytes).toHaveLength(2 * EDGES.length * 4);
    expect(bytes.subarray(0, 12)).toEqual(Buffer.from([0, 0, 0, 0, 0x80, 0, 0, 0, 0x3f, 0xc0, 0, 0]));
    const width = EDGES.length * 4;
    expect(Object.is(unpackVector(bytes.subarray(0, width))![1], -0)).toBe(true);
    expect(unpackVector(bytes.subarray(0, width))).toEqual(vectors[0]);
    expect(unpackVector(bytes.subarray(width))).toEqual(vectors[1]);
    // A slice that does not start on a 4-byte boundary of its memory reads the same.
    const odd = Buffer.concat([Buffer.from([7]), bytes]).subarray(1, 1 + width);
    expect(unpackVector(odd)).toEqual(vectors[0]);
    expect(unpackVector(Buffer.from([1, 2, 3]))).toBeNull();
    expect(() => packVectors([new Float32Array(2), new Float32Array(3)])).toThrow(/2 and 3 dimensions|3 and 2 dimensions/);
  });

  it('rank by cosine from rows of bytes, leaving out rows of another length or none', () => {
    const rows = [
      { id: 1, v: packVectors([[1, 0, 0]]) },
      { id: 2, v: packVectors([[0, 2, 0]]) },
      { id: 3, v: packVectors([[1, 1, 0]]) },
      { id: 4, v: packVectors([[1, 0]]) },
      { id: 5, v: null },
    ];
    const set = vectorSet(rows, 3);
    expect(Array.from(set.ids)).toEqual([1, 2, 3]);
    expect(nearest(set, Float32Array.from([0, 1, 0]), 3)).toEqual([2, 3, 1]);
    expect(nearest(set, Float32Array.from([0, 1, 0]), 2)).toEqual([2, 3]);
    // Equals in the order of their ids, whatever the rows' order; more asked than there are: all.
    const ties = vectorSet([9, 4, 7, 5].map((id) => ({ id, v: packVectors([[1, id === 5 ? 0 : 1, 0]]) })), 3);
    expect(nearest(ties, Float32Array.from([0.7071067690849304, 0.7071067690849304, 0]), 10)).toEqual([4, 7, 9, 5]);
    expect(nearest(ties, Float32Array.from([0.7071067690849304, 0.7071067690849304, 0]), 2)).toEqual([4, 7]);
  });

  it('read a base’s vectors from pages of bytes one after another, leaving out a page that does not split evenly', () => {
    const a = [Float32Array.from([3, 4]), Float32Array.from([0, 2])];
    const set = vectorSetOfPages(
      [
        { ids: [1, 2], bytes: packVectors(a) },
        { ids: [3], bytes: packVectors([[1, 0, 0]]) },
        { ids: [4], bytes: packVectors([[0, -1]]) },
      ],
      2,
    );
    expect(Array.from(set.ids)).toEqual([1, 2, 4]);
    expect(Array.from(set.values)).toEqual([0.6000000238418579, 0.800000011920929, 0, 1, 0, -1]);
  });
});

describe('the migration of vectors written as real[]', () => {
  it('converts each to its float32 bytes, keeps a chunk without one without, and bounds GIN’s pending list to 256 kB', async () => {
    const database = `vozgate_test_${randomBytes(6).toString('hex')}`;
    const admin = new Client({ connectionString: process.env.TEST_DATABASE_URL });
    await admin.connect();
    await admin.query(`create database ${database}`);
    const url = new URL(process.env.TEST_DATABASE_URL!);
    url.pathname = `/${database}`;
    const orm = await MikroORM.init(ormConfig({ databaseUrl: url.toString() }));
    try {
      await orm.getMigrator().up({ to: 'Migration20261205010000_knowledge_embeddings_model' });
      const em = orm.em.fork();
      // An account of that schema's time, in SQL: today's entities (a token's name and last use) are newer than it.
      const [account] = await em.execute<{ id: number }[]>(`insert into accounts (name, balance) values ('Antiga', 10) returning id`);
      const [base] = await em.execute(`insert into knowledge_bases (account_id, name) values (?, 'Base') returning id`, [account.id]);
      const [document] = await em.execute(
        `insert into knowledge_documents (knowledge_base_id, name, type, status, chunks_count, embeddings_model) values (?, 'Doc', 'text', 'ready', 2, 'm') returning id`,
        [base.id],
      );
      // As ingestion wrote them: 9 significant digits, which give back the same float32.
      const literal = `{${EDGES.map((value) => (Object.is(value, -0) ? '-0' : Math.fround(value).toPrecision(9))).join(',')}}`;
      await em.execute(
        `insert into knowledge_chunks (document_id, knowledge_base_id, ordinal, content, language, embedding)
         values (?, ?, 0, 'Com vetor.', 'portuguese', ?::real[]), (?, ?, 1, 'Sem vetor.', 'portuguese', null)`,
        [document.id, base.id, literal, document.id, base.id],
      );

      await orm.getMigrator().up();
      const rows = await orm.em.fork().execute('select ordinal, embedding from knowledge_chunks order by ordinal');
      expect(rows[0].embedding).toEqual(packVectors([Float32Array.from(EDGES)]));
      expect(unpackVector(rows[0].embedding)).toEqual(Float32Array.from(EDGES));
      expect(rows[1].embedding).toBeNull();
      const [index] = await orm.em.fork().execute(`select reloptions from pg_class where relname = 'knowledge_chunks_base_tsv_index'`);
      expect(index.reloptions).toEqual(['gin_pending_list_limit=256']);
    } finally {
      await orm.close();
      await admin.query(`drop database if exists ${database} with (force)`);
      await admin.end();
    }
  });
});
