import type { EntityManager } from '@mikro-orm/postgresql';
import { Client } from 'pg';
import { loadConfig } from '../src/config';
import { initOrm } from '../src/db/orm';
import { documentReaders } from '../src/documents';
import { createAccount } from '../src/modules/accounts/account.service';
import { ingestDocument } from '../src/modules/knowledge/knowledge.ingest';
import { createKnowledgeBase, createKnowledgeDocument } from '../src/modules/knowledge/knowledge.service';
import { SEARCH_MAX_RANKED, VECTOR_CACHE_BYTES, VECTOR_WHOLE_BASE_CHUNKS } from '../src/modules/knowledge/knowledge.rules';
import { fullTextStatement, searchKnowledgeBase, type SearchDeps } from '../src/modules/knowledge/knowledge.search';
import type { Embedder } from '../src/modules/knowledge/knowledge.ports';
import { packVectors, VectorCache } from '../src/modules/knowledge/knowledge.vectors';
import { dropDatabase, freshDatabase, percentile } from './process';
import { seededRandom } from '../src/lib/seeded-random';

/**
 * `npm run bench -- --only kb` (issue 54): knowledge-base search and ingestion, on a database of
 * its own. The chunks are Portuguese-like prose of about 800 characters (a fixed-seed generator:
 * Portuguese's glue words, a shop's words and invented ones, 8,000 in all, drawn Zipf-like as
 * words are in text; prose(), below), inserted in bulk with SQL:
 * `chunks` in one account's base, then as many in each of two other accounts' bases. Measured:
 * - full-text search (searchKnowledgeBase, the service the API and GraphQL call) over a few
 *   hundred questions, p50/p99, in the first base alone and with the other accounts' chunks
 *   beside it, with the plan of one question (EXPLAIN ANALYZE) each time;
 * - ingestion through the real path (createKnowledgeDocument, then ingestDocument, as the job
 *   runs it) of text documents, in chunks per second.
 */
/** p50 and p99 of each round of the questions, and the rounds' median of each (the row's figures). */
export interface Timed {
  p50_ms: number;
  p99_ms: number;
  rounds: { p50_ms: number; p99_ms: number }[];
}

export interface KbResult {
  chunks_per_base: number;
  bases: number;
  queries: number;
  search: ({ chunks_in_table: number; bases: number; index: string; mean_hits: number } & Timed)[];
  hybrid: ({ chunks_in_base: number; path: string; load_ms?: number } & Timed)[];
  ingestion_embedded?: { documents: number; chunks: number; seconds: number; chunks_per_s: number };
  plans: { chunks_in_table: number; index: string; question: string; plan: string }[];
  ingestion?: { documents: number; chunks: number; seconds: number; chunks_per_s: number };
}

/** The parts of the scenario (`--part`, repeatable; all by default): full-text search, hybrid search, ingestion. */
export const KB_PARTS = ['search', 'hybrid', 'ingestion'] as const;
export type KbPart = (typeof KB_PARTS)[number];

/** Portuguese's commonest words, most of them the text-search configuration's stop words: the prose's glue. */
const GLUE = ['de', 'a', 'o', 'que', 'e', 'do', 'da', 'em', 'um', 'para', 'com', 'não', 'uma', 'os', 'no', 'se', 'na', 'por', 'mais', 'as', 'dos', 'como', 'mas', 'ao', 'das', 'seu', 'sua', 'ou', 'quando', 'muito', 'nos', 'já', 'também', 'pelo', 'pela', 'até', 'isso', 'entre', 'depois', 'sem', 'mesmo', 'aos', 'ter', 'seus', 'quem', 'nas', 'esse', 'eles', 'essa', 'num', 'nem', 'suas', 'meu', 'às', 'minha', 'numa', 'pelos', 'qual', 'será', 'nós', 'lhe', 'deles', 'essas', 'esses', 'pelas', 'este', 'dele'];

/** A shop's words, the commonest content words of its knowledge base. */
const SHOP = [
  'cliente', 'pedido', 'entrega', 'produto', 'garantia', 'reembolso', 'assinatura', 'plano', 'fatura', 'boleto', 'cartão', 'troca', 'devolução', 'frete',
  'suporte', 'atendimento', 'conta', 'aplicativo', 'site', 'senha', 'cadastro', 'nota', 'fiscal', 'estoque', 'promoção', 'cupom', 'desconto',
  'transportadora', 'prazo', 'pagamento', 'parcela', 'contrato', 'instalação', 'técnico', 'assistência', 'manual', 'bateria', 'carregador', 'tela',
  'celular', 'geladeira', 'fogão', 'máquina', 'televisão', 'notebook', 'impressora', 'roteador', 'internet', 'linha', 'chip', 'portabilidade',
  'solicitar', 'confirmar', 'enviar', 'disponível', 'processar', 'cancelar', 'aprovar', 'agendar', 'calcular', 'alterar', 'liberar', 'informar',
  'parcelar', 'atualizar', 'verificar', 'rastrear', 'entregar', 'devolver', 'cobrar', 'trocar', 'registrar', 'suspender', 'dias', 'úteis', 'endereço',
  'protocolo', 'defeito', 'fabricação', 'loja', 'região', 'capital', 'horário', 'comercial', 'crédito', 'taxa', 'serviço', 'embalagem', 'consumidor',
];

const SYLLABLES = ['ba', 'be', 'ca', 'ci', 'co', 'da', 'de', 'do', 'fa', 'fi', 'ga', 'go', 'la', 'le', 'li', 'lo', 'ma', 'me', 'mi', 'mo', 'na', 'ne', 'no', 'pa', 'pe', 'pi', 'po', 'ra', 're', 'ri', 'ro', 'sa', 'se', 'si', 'so', 'ta', 'te', 'ti', 'to', 'va', 've', 'vi', 'tra', 'pre', 'con', 'des', 'com', 'por', 'cla', 'gru'];
const ENDINGS = ['o', 'a', 'ção', 'mento', 'dade', 'ar', 'er', 'ir', 'ista', 'ável', 'ante', 'ico', 'ia', 'ões', 'os', 'as'];

/**
 * The content words: the shop's, then word-like inventions to make a vocabulary of 8,000 (a
 * knowledge base's size: its documents' words, names and terms), drawn Zipf-like (s = 1) as
 * words are in text. So the commonest are in nearly every chunk, the hundredth in a few percent.
 */
function vocabulary(random: () => number): string[] {
  const words = new Set(SHOP);
  while (words.size < 8000) {
    const length = 1 + Math.floor(random() * 3);
    let word = '';
    for (let i = 0; i < length; i++) word += SYLLABLES[Math.floor(random() * SYLLABLES.length)];
    words.add(word + ENDINGS[Math.floor(random() * ENDINGS.length)]);
  }
  return [...words];
}

/** A sampler of ranks 0..n-1 with P(rank k) proportional to 1 / (k + 1). */
function zipf(random: () => number, n: number): () => number {
  const cumulative = new Float64Array(n);
  let sum = 0;
  for (let k = 0; k < n; k++) cumulative[k] = sum += 1 / (k + 1);
  return () => {
    const target = random() * sum;
    let low = 0;
    let high = n - 1;
    while (low < high) {
      const middle = (low + high) >> 1;
      if (cumulative[middle] < target) low = middle + 1;
      else high = middle;
    }
    return low;
  };
}

interface Prose {
  chunk(): string;
  question(): string;
}

/** Chunks of about 800 characters of sentences, half their words glue, and questions of the same words. */
export function prose(random: () => number): Prose {
  const words = vocabulary(random);
  const rank = zipf(random, words.length);
  const glue = () => GLUE[Math.floor(GLUE.length * random() ** 2)];
  const sentence = () => {
    const parts: string[] = [];
    const length = 8 + Math.floor(random() * 10);
    for (let i = 0; i < length; i++) parts.push(random() < 0.5 ? glue() : words[rank()]);
    const text = parts.join(' ');
    return `${text[0].toUpperCase()}${text.slice(1)}.`;
  };
  return {
    chunk() {
      const sentences: string[] = [];
      let length = 0;
      while (length < 760) {
        const text = sentence();
        sentences.push(text);
        length += text.length + 1;
      }
      return sentences.join(' ');
    },
    question() {
      const parts = [random() < 0.5 ? 'Qual' : 'Como'];
      const content = 2 + Math.floor(random() * 4);
      for (let i = 0; i < content; i++) parts.push(glue(), words[rank()]);
      return `${parts.join(' ')}?`;
    },
  };
}

const INSERT_ROWS = 2000;
/** The bench's vectors: OpenAI's text-embedding-3-small's length. */
const DIMENSIONS = 1536;

/**
 * An embeddings model in process that answers at once (a vector from a fixed-seed generator per
 * text): the hybrid rows time vozgate's side, the model's latency excluded, as the target says.
 */
function instantEmbedder(random: () => number): Embedder {
  return {
    model: 'bench-embedding',
    async embed(texts) {
      return texts.map(() => Float32Array.from({ length: DIMENSIONS }, () => random() - 0.5));
    },
  };
}

export async function runKbScenario(
  adminUrl: string,
  chunksPerBase: number,
  queries: number,
  ingestDocuments: number,
  log: (line: string) => void,
  options: { parts?: readonly KbPart[]; rounds?: number } = {},
): Promise<KbResult> {
  const parts = new Set(options.parts?.length ? options.parts : KB_PARTS);
  const rounds = Math.max(1, options.rounds ?? 3);
  const name = 'vozgate_bench_kb';
  const databaseUrl = await freshDatabase(adminUrl, name);
  const orm = await initOrm({ databaseUrl });
  const config = loadConfig({ KB_MAX_DOCUMENTS: String(Math.max(200, ingestDocuments + 10)) });
  const db = new Client({ connectionString: databaseUrl });
  await db.connect();
  try {
    const text = prose(seededRandom(54));
    const bases: { accountId: number; baseId: number; documentId: number }[] = [];
    for (let n = 0; n < 3; n++) {
      const { account } = await createAccount(orm.em.fork(), { name: `KB ${n}`, balance: '10' });
      const scope = { em: orm.em.fork(), accountId: account.id, config };
      const base = await createKnowledgeBase(scope, { name: `Base ${n}` });
      const document = await createKnowledgeDocument({ ...scope, em: orm.em.fork() }, base.id, { name: 'Bulk', type: 'text', content: 'carga' });
      bases.push({ accountId: account.id, baseId: base.id, documentId: document.id });
    }
    const load = async (at: (typeof bases)[number]) => {
      const started = performance.now();
      for (let from = 0; from < chunksPerBase; from += INSERT_ROWS) {
        const texts = Array.from({ length: Math.min(INSERT_ROWS, chunksPerBase - from) }, () => text.chunk());
        await db.query(
          `insert into knowledge_chunks (document_id, knowledge_base_id, ordinal, content, language)
           select $1, $2, t.ordinal - 1 + $3, t.content, 'portuguese'::regconfig from jsonb_array_elements_text($4::jsonb) with ordinality as t(content, ordinal)`,
          [at.documentId, at.baseId, from, JSON.stringify(texts)],
        );
      }
      await db.query(`update knowledge_documents set status = 'ready', chunks_count = $2 where id = $1`, [at.documentId, chunksPerBase]);
      // What autovacuum does after a bulk write, in production within a minute (its naptime):
      // the statistics the planner reads each word's frequency from, the visibility map.
      await db.query('vacuum analyze knowledge_chunks');
      log(`kb: ${chunksPerBase} chunks into base ${at.baseId} in ${((performance.now() - started) / 1000).toFixed(1)} s`);
    };
    const asked = Array.from({ length: queries }, () => text.question());
    const first = bases[0];
    const scope = () => ({ em: orm.em.fork(), accountId: first.accountId, config });
    const search: KbResult['search'] = [];
    const plans: KbResult['plans'] = [];
    /** The questions `rounds` times after a warm-up, each round's p50 and p99; the row's are the rounds' medians; the slowest question kept for its plan. */
    const timeQuestions = async (baseId: number, deps: SearchDeps): Promise<Timed & { hits: number; slowest: string }> => {
      for (const q of asked.slice(0, 30)) await searchKnowledgeBase(scope(), baseId, q, 5, deps); // warm-up (and the vectors' cache)
      const each: Timed['rounds'] = [];
      let hits = 0;
      let slowest = { ms: 0, q: asked[0] };
      for (let r = 0; r < rounds; r++) {
        const times: number[] = [];
        for (const q of asked) {
          const started = performance.now();
          hits += (await searchKnowledgeBase(scope(), baseId, q, 5, deps)).length;
          const ms = performance.now() - started;
          times.push(ms);
          if (ms > slowest.ms) slowest = { ms, q };
        }
        times.sort((a, b) => a - b);
        each.push({ p50_ms: round(percentile(times, 50)), p99_ms: round(percentile(times, 99)) });
      }
      const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
      return {
        p50_ms: median(each.map((r) => r.p50_ms)),
        p99_ms: median(each.map((r) => r.p99_ms)),
        rounds: each,
        hits: round(hits / asked.length / rounds),
        slowest: slowest.q,
      };
    };
    const measure = async (index: string, bases: number) => {
      const [{ n }] = (await db.query('select count(*)::int as n from knowledge_chunks')).rows;
      const { hits, slowest, ...timed } = await timeQuestions(first.baseId, {});
      search.push({ chunks_in_table: n, bases, index, mean_hits: hits, ...timed });
      log(`kb: search over ${n} chunks (${index}): p50 ${timed.p50_ms} ms, p99 ${timed.p99_ms} ms (rounds: ${timed.rounds.map((r) => r.p99_ms).join(', ')})`);
      for (const question of [asked[0], slowest]) plans.push({ chunks_in_table: n, index, question, plan: await explain(db, orm.em.fork(), first.baseId, question) });
    };
    const COMPOSITE = 'GIN (knowledge_base_id, tsv)';
    const TSV_ALONE = 'GIN (tsv) alone';
    /** Measures with GIN over tsv alone (the index before Migration20261204000000), then puts the composite back. */
    const withTsvAlone = async (bases: number) => {
      await db.query('drop index knowledge_chunks_base_tsv_index');
      await db.query('create index knowledge_chunks_tsv_index on knowledge_chunks using gin (tsv) with (gin_pending_list_limit = 256)');
      await db.query('analyze knowledge_chunks');
      await measure(TSV_ALONE, bases);
      await db.query('drop index knowledge_chunks_tsv_index');
      await db.query('create index knowledge_chunks_base_tsv_index on knowledge_chunks using gin (knowledge_base_id, tsv) with (gin_pending_list_limit = 256)');
      await db.query('analyze knowledge_chunks');
    };
    const hybrid: KbResult['hybrid'] = [];
    let ingestion: KbResult['ingestion'];
    let embedded: KbResult['ingestion_embedded'];
    const embedder = instantEmbedder(seededRandom(55));
    if (parts.has('search') || parts.has('hybrid')) await load(first);
    if (parts.has('search')) {
      await measure(COMPOSITE, 1);
      await withTsvAlone(1);
      await load(bases[1]);
      await load(bases[2]);
      await measure(COMPOSITE, 3);
      await withTsvAlone(3);
    }

    if (parts.has('hybrid')) {
      // Hybrid: the first base's chunks given vectors (one vector for all: the cost of a search
      // does not depend on their values), ranked over the full-text candidates; and a base of
      // VECTOR_WHOLE_BASE_CHUNKS chunks with vectors of their own, ranked whole from memory.
      const started0 = performance.now();
      const [one] = await embedder.embed(['x']);
      await db.query('update knowledge_chunks set embedding = $2 where knowledge_base_id = $1', [first.baseId, packVectors([one])]);
      await db.query(`update knowledge_documents set embeddings_model = $2 where knowledge_base_id = $1`, [first.baseId, embedder.model]);
      await db.query('vacuum analyze knowledge_chunks');
      log(`kb: vectors for ${chunksPerBase} chunks in ${((performance.now() - started0) / 1000).toFixed(1)} s`);
      const { hits: _h, slowest: _s, ...candidates } = await timeQuestions(first.baseId, { embedder });
      hybrid.push({ chunks_in_base: chunksPerBase, path: 'vectors of the full-text candidates', ...candidates });
      log(`kb: hybrid over ${chunksPerBase} chunks: p50 ${candidates.p50_ms} ms, p99 ${candidates.p99_ms} ms (rounds: ${candidates.rounds.map((r) => r.p99_ms).join(', ')})`);
      const small = { em: orm.em.fork(), accountId: first.accountId, config };
      const smallBase = await createKnowledgeBase(small, { name: 'Whole' });
      const smallDocument = await createKnowledgeDocument({ ...small, em: orm.em.fork() }, smallBase.id, { name: 'Bulk', type: 'text', content: 'carga' });
      const WHOLE = VECTOR_WHOLE_BASE_CHUNKS;
      for (let from = 0; from < WHOLE; from += 500) {
        const texts = Array.from({ length: Math.min(500, WHOLE - from) }, () => text.chunk());
        const vectors = packVectors(await embedder.embed(texts));
        await db.query(
          `insert into knowledge_chunks (document_id, knowledge_base_id, ordinal, content, language, embedding)
           select $1, $2, t.ordinal - 1 + $3, t.content, 'portuguese'::regconfig, substring($5::bytea from (t.ordinal::int - 1) * $6 + 1 for $6)
             from jsonb_array_elements_text($4::jsonb) with ordinality as t(content, ordinal)`,
          [smallDocument.id, smallBase.id, from, JSON.stringify(texts), vectors, DIMENSIONS * 4],
        );
      }
      await db.query(`update knowledge_documents set status = 'ready', chunks_count = $2, embeddings_model = $3 where id = $1`, [smallDocument.id, WHOLE, embedder.model]);
      await db.query('vacuum analyze knowledge_chunks');
      // The first search reads the base's vectors: timed three times, each with a cache of its own.
      const loads: number[] = [];
      for (let n = 0; n < 3; n++) {
        const loadStarted = performance.now();
        await searchKnowledgeBase(scope(), smallBase.id, asked[n], 5, { embedder, vectors: new VectorCache(VECTOR_CACHE_BYTES) });
        loads.push(round(performance.now() - loadStarted));
      }
      const { hits: _h2, slowest: _s2, ...whole } = await timeQuestions(smallBase.id, { embedder });
      const loadMs = [...loads].sort((a, b) => a - b)[1];
      hybrid.push({ chunks_in_base: WHOLE, path: `whole base from memory (the first search reads its vectors: ${loads.join(', ')} ms)`, load_ms: loadMs, ...whole });
      log(`kb: hybrid over ${WHOLE} chunks (whole): p50 ${whole.p50_ms} ms, p99 ${whole.p99_ms} ms (rounds: ${whole.rounds.map((r) => r.p99_ms).join(', ')}), cold ${loads.join(', ')} ms`);
    }

    if (parts.has('ingestion')) {
      // Ingestion through the real path: documents of about 20,000 characters each.
      const readers = documentReaders();
      const ingestScope = { em: orm.em.fork(), accountId: first.accountId, config };
      const ingestBase = await createKnowledgeBase(ingestScope, { name: 'Ingestion' });
      const ids: number[] = [];
      for (let n = 0; n < ingestDocuments; n++) {
        const content = Array.from({ length: 25 }, () => text.chunk()).join('\n\n');
        ids.push((await createKnowledgeDocument({ ...ingestScope, em: orm.em.fork() }, ingestBase.id, { name: `Doc ${n}`, type: 'text', content })).id);
      }
      const ingest = async (deps: { readers: typeof readers; embedder?: Embedder }) => {
        const started = performance.now();
        for (const id of ids) await ingestDocument(orm.em.fork(), id, deps);
        const seconds = (performance.now() - started) / 1000;
        const [{ chunks }] = (await db.query('select count(*)::int as chunks from knowledge_chunks where knowledge_base_id = $1', [ingestBase.id])).rows;
        return { documents: ingestDocuments, chunks, seconds: round(seconds), chunks_per_s: Math.round(chunks / seconds) };
      };
      ingestion = await ingest({ readers });
      log(`kb: ingestion of ${ingestDocuments} documents (${ingestion.chunks} chunks) in ${ingestion.seconds} s: ${ingestion.chunks_per_s} chunks/s`);
      // Again, each document's chunks replaced, now with vectors of 1536 dimensions (the model's latency excluded).
      embedded = await ingest({ readers, embedder });
      log(`kb: ingestion with embeddings: ${embedded.chunks_per_s} chunks/s`);
    }
    return { chunks_per_base: chunksPerBase, bases: 3, queries, search, plans, ingestion, hybrid, ingestion_embedded: embedded };
  } finally {
    await db.end();
    await orm.close();
    await dropDatabase(adminUrl, name);
  }
}

const round = (value: number) => Math.round(value * 100) / 100;

/** The search's plan for one question, with the service's statement (knowledge.search.ts) and its values. */
async function explain(db: Client, em: EntityManager, baseId: number, q: string): Promise<string> {
  const { sql, values } = await fullTextStatement(em, { id: baseId, language: 'portuguese' }, q, 5);
  let n = 0;
  const { rows } = await db.query(`explain (analyze, buffers, costs off) ${sql.replace(/\?/g, () => `$${++n}`)}`, values);
  return rows.map((row: Record<string, string>) => row['QUERY PLAN']).join('\n');
}

const spread = (row: Timed) => `${Math.min(...row.rounds.map((r) => r.p99_ms))}–${Math.max(...row.rounds.map((r) => r.p99_ms))}`;

export function kbMarkdown(result: KbResult): string {
  const rounds = result.search[0]?.rounds.length ?? result.hybrid[0]?.rounds.length ?? 0;
  return [
    `Knowledge-base search: ${result.queries} questions (2 to 5 content words with glue words between), top 5, one after another, through searchKnowledgeBase (at most ${SEARCH_MAX_RANKED} chunks ranked), ${rounds} rounds after a warm-up: p50 and p99 are the rounds' medians, the spread the rounds' p99s; ${result.chunks_per_base.toLocaleString('en')} chunks of ~800 characters in the searched base.`,
    '',
    ...(result.search.length
      ? [
          '| chunks in the table | bases | index | p50 ms | p99 ms | p99 of the rounds | hits per query |',
          '|---:|---:|---|---:|---:|---:|---:|',
          ...result.search.map((row) => `| ${row.chunks_in_table.toLocaleString('en')} | ${row.bases} | ${row.index} | ${row.p50_ms} | ${row.p99_ms} | ${spread(row)} | ${row.mean_hits} |`),
          '',
        ]
      : []),
    ...(result.hybrid.length
      ? [
          `Hybrid search (EMBEDDINGS_MODEL; an embeddings model in process that answers at once, vectors of ${DIMENSIONS} dimensions: the model's latency excluded), the same questions:`,
          '',
          '| chunks in the base | vectors ranked | p50 ms | p99 ms | p99 of the rounds |',
          '|---:|---|---:|---:|---:|',
          ...result.hybrid.map((row) => `| ${row.chunks_in_base.toLocaleString('en')} | ${row.path} | ${row.p50_ms} | ${row.p99_ms} | ${spread(row)} |`),
          '',
        ]
      : []),
    ...(result.ingestion && result.ingestion_embedded
      ? [
          `Ingestion (createKnowledgeDocument, then ingestDocument as the job runs it, one after another): ${result.ingestion.documents} text documents of ~20,000 characters, ${result.ingestion.chunks.toLocaleString('en')} chunks in ${result.ingestion.seconds} s: **${result.ingestion.chunks_per_s.toLocaleString('en')} chunks/s**; with embeddings (${DIMENSIONS} dimensions, the model's latency excluded): ${result.ingestion_embedded.seconds} s, **${result.ingestion_embedded.chunks_per_s.toLocaleString('en')} chunks/s**.`,
          '',
        ]
      : []),
    ...result.plans.flatMap((plan) => [`Plan of "${plan.question}" with ${plan.chunks_in_table.toLocaleString('en')} chunks in the table, ${plan.index}:`, '', '```', plan.plan, '```', '']),
  ].join('\n');
}
