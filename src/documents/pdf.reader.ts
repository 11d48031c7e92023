import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { UnreadableDocumentError } from '../modules/knowledge/knowledge.readers';

/**
 * A PDF's text, read with Mozilla's pdf.js (pdfjs-dist, its legacy build for Node) on a worker
 * thread: a PDF is untrusted input, and parsing it on the event loop would hold every request
 * for as long as a crafted file likes. The thread has its own heap bound (`resourceLimits`) and
 * is terminated when it has not answered in time; either way the document fails with a reason.
 * Nothing reaches the network: no font is loaded (`disableFontFace`, no `standardFontDataUrl`),
 * no code is generated from the file (`isEvalSupported: false`), no WebAssembly decoder.
 */
export interface PdfReaderOptions {
  /** The most a PDF may take to read (default 30 s). */
  timeoutMs?: number;
  /** The worker's heap (default 256 MB): a PDF of KB_MAX_DOCUMENT_BYTES that needs more fails. */
  maxHeapMb?: number;
  /** pdf.js's module, as a file URL (a test's, to reach a worker that cannot load it). */
  pdfjs?: string;
}

const PDFJS = pathToFileURL(require.resolve('pdfjs-dist/legacy/build/pdf.mjs')).href;

/**
 * The worker: plain JavaScript, as a worker thread runs it whether vozgate runs compiled or under
 * the tests (whose module system it never sees); pdf.js is ESM only, so it is imported. It
 * answers with each page's text, `{error, kind}` for a file pdf.js refuses, or `{fault}` when
 * pdf.js itself could not be loaded (ours to fix, not the file's).
 */
const WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
(async () => {
  let pdfjs;
  try {
    pdfjs = await import(workerData.pdfjs);
  } catch (error) {
    parentPort.postMessage({ fault: String((error && error.message) || error).slice(0, 200) });
    return;
  }
  const task = pdfjs.getDocument({
    data: workerData.data,
    disableFontFace: true,
    isEvalSupported: false,
    useSystemFonts: false,
    useWasm: false,
    isOffscreenCanvasSupported: false,
    isImageDecoderSupported: false,
    enableXfa: false,
    stopAtErrors: false,
    verbosity: 0,
  });
  const document = await task.promise;
  const pages = [];
  for (let number = 1; number <= document.numPages; number++) {
    const page = await document.getPage(number);
    const content = await page.getTextContent();
    pages.push(content.items.map((item) => ('str' in item ? item.str + (item.hasEOL ? '\\n' : '') : '')).join(''));
    page.cleanup();
  }
  await task.destroy();
  parentPort.postMessage({ pages });
})().catch((error) => parentPort.postMessage({ error: String((error && error.message) || error).slice(0, 200), kind: (error && error.name) || '' }));
`;

/** The smallest heap a reader's thread is given: Node 24 aborts the process creating a thread with 2 MB. */
const MIN_HEAP_MB = 8;

/** A reader of PDFs with these bounds. */
export function pdfReader(options: PdfReaderOptions = {}): (file: Buffer) => Promise<string> {
  const timeoutMs = options.timeoutMs ?? 30_000;
  // Below a few MB, Node 24 cannot even create the thread's heap, and that ends the whole process.
  const maxHeapMb = Math.max(MIN_HEAP_MB, options.maxHeapMb ?? 256);
  return async (file) => {
    const pages = await pagesOf(file, timeoutMs, maxHeapMb, options.pdfjs ?? PDFJS);
    const text = pages.map((page) => page.trim()).filter(Boolean).join('\n\n');
    if (!text) throw new UnreadableDocumentError('O PDF não tem texto (é uma digitalização ou só imagens); envie um PDF com camada de texto.');
    return text;
  };
}

function pagesOf(file: Buffer, timeoutMs: number, maxHeapMb: number, pdfjs: string): Promise<string[]> {
  return new Promise((resolve, reject) => {
    // A copy the worker owns: pdf.js transfers (detaches) the buffer it is given.
    const data = new Uint8Array(file);
    const thread = new Worker(WORKER, {
      eval: true,
      workerData: { pdfjs, data },
      transferList: [data.buffer],
      resourceLimits: { maxOldGenerationSizeMb: maxHeapMb, maxYoungGenerationSizeMb: Math.min(32, maxHeapMb), stackSizeMb: 4 },
      stdout: true,
      stderr: true,
    });
    // What pdf.js prints about a broken file is not ours to log: drained and dropped.
    thread.stdout.resume();
    thread.stderr.resume();
    let settled = false;
    const settle = (outcome: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      void thread.terminate();
      outcome();
    };
    const unreadable = (reason: string) => settle(() => reject(new UnreadableDocumentError(reason)));
    const timer = setTimeout(() => unreadable(`O PDF não pôde ser lido em ${seconds(timeoutMs)}.`), timeoutMs);
    thread.on('message', (answer: { pages?: string[]; error?: string; kind?: string; fault?: string }) => {
      if (answer.pages) return settle(() => resolve(answer.pages as string[]));
      // Not the file's fault: the job is retried, the document not failed.
      if (answer.fault) return settle(() => reject(new Error(`pdf.js could not be loaded: ${answer.fault}`)));
      if (answer.kind === 'PasswordException') return unreadable('O PDF é protegido por senha.');
      unreadable('O arquivo não é um PDF legível (corrompido ou incompleto).');
    });
    thread.on('error', (error: Error & { code?: string }) => {
      if (error.code === 'ERR_WORKER_OUT_OF_MEMORY') return unreadable(`O PDF não pôde ser lido com ${maxHeapMb} MB de memória.`);
      // Not the file's fault (the worker could not start): retried by the queue.
      settle(() => reject(new Error(`the PDF worker failed: ${error.message}`)));
    });
    thread.on('exit', () => unreadable('O arquivo não é um PDF legível (corrompido ou incompleto).'));
  });
}

const seconds = (ms: number) => (ms >= 1000 ? `${Math.round(ms / 1000)} s` : `${ms} ms`);
