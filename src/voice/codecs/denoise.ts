import { readFile } from 'node:fs/promises';
import { Resampler } from './resample';

/**
 * Noise suppression of the caller's audio, before VAD and STT (design.md, "The pipeline engine
 * (contract)": `noise_cancellation`). RNNoise (xiph/rnnoise, BSD-3-Clause) compiled to
 * WebAssembly, as the npm package `@shiguredo/rnnoise-wasm` 2022.2.0 (Apache-2.0) ships it in
 * dist/rnnoise_simd.wasm (the SIMD build; Node's V8 has WebAssembly SIMD): read from disk, never
 * fetched. That release ships the .wasm as a file of its own (the current one inlines it in a
 * bundle built for browsers only), but its JavaScript glue is an ES module that CommonJS cannot
 * load, so the module is instantiated here with the three functions it imports, as the glue
 * gives them (dist/rnnoise.mjs, `asmLibraryArg`). The C API is include/rnnoise.h of
 * shiguredo/rnnoise: `rnnoise_create(NULL)` (the default model), `rnnoise_process_frame(st, out,
 * in)` on 480 float samples of 48 kHz audio in the int16 range, `rnnoise_destroy(st)`.
 *
 * One module per process, loaded on first use and shared by every call; each call has its own
 * RNNoise state and its own input and output frames on the module's heap. Cost, measured on the
 * 2-core machine of bench/results/pipeline-noise-worker-s25.md: about 0.45 ms of CPU per 20 ms
 * chunk for RNNoise (2.2% of a core a call; its scalar build 2.9%) and 0.16 ms for the
 * resampling around it (0.8%): too much for the event loop's thread, so calls use it on the
 * voice worker thread (vad/denoiser.ts), which loads this file.
 *
 * Latency: the denoised audio comes out DENOISE_LATENCY_SAMPLES (about 14 ms) after the audio
 * that went in: RNNoise's overlap-add gives a frame back one frame (10 ms) late, and the two
 * resampling filters (8 -> 48 kHz and back) each delay it by half their length, about 2 ms.
 * A chunk of a multiple of 10 ms (80 samples; Twilio's 20 ms frames are 160) comes back as as
 * many samples; of any other size, the samples that do not fill a 10 ms frame wait for the next
 * chunk.
 */
/** The rates a call's audio comes at: the telephone's, a browser's. */
export type DenoiseRate = 8000 | 16000;
/** How far (in 8 kHz samples) the output lags the input: 480 + 2 x 95.5 samples at 48 kHz. */
export const DENOISE_LATENCY_SAMPLES = 112;

/** RNNoise's frame: 10 ms at 48 kHz. */
const FRAME = 480;
const FLOAT_BYTES = 4;
const WASM_PAGE_BYTES = 65536;
const WASM_FILE = require.resolve('@shiguredo/rnnoise-wasm/dist/rnnoise_simd.wasm');

interface WasmMemory {
  readonly buffer: ArrayBuffer;
  grow(pages: number): number;
}

/** The part of the WebAssembly JavaScript API used here (TypeScript declares it in the DOM lib, which this project leaves out). */
declare const WebAssembly: {
  instantiate(bytes: Uint8Array, imports: Record<string, Record<string, (...args: number[]) => unknown>>): Promise<{ instance: { exports: unknown } }>;
};

/** What the module exports and this file uses (pointers are byte offsets into `memory`). */
interface RnnoiseModule {
  memory: WasmMemory;
  emscripten_stack_init(): void;
  __wasm_call_ctors(): void;
  rnnoise_create(model: number): number;
  rnnoise_destroy(state: number): void;
  rnnoise_process_frame(state: number, out: number, input: number): number;
  malloc(bytes: number): number;
  free(pointer: number): void;
}

let shared: Promise<RnnoiseModule> | null = null;

function rnnoise(): Promise<RnnoiseModule> {
  shared ??= load().catch((error) => {
    shared = null;
    throw error;
  });
  return shared;
}

async function load(): Promise<RnnoiseModule> {
  const bytes = await readFile(WASM_FILE);
  // The imports run only once the module is instantiated, when `memory` is set.
  let memory!: WasmMemory;
  const { instance } = await WebAssembly.instantiate(bytes, {
    env: {
      // Returns nothing, as the glue's does: a returned array would be turned into a number,
      // through a string of the whole heap.
      emscripten_memcpy_big: (dest, src, count) => {
        new Uint8Array(memory.buffer).copyWithin(dest, src, src + count);
      },
      emscripten_resize_heap: (requested) => growTo(memory, requested >>> 0),
      __assert_fail: (condition, file, line) => {
        // The throw leaves the module's C stack unwound: calls that start afterwards get a new module.
        shared = null;
        throw new Error(`RNNoise: assertion ${cString(memory, condition)} failed at ${cString(memory, file)}:${line}`);
      },
    },
  });
  const module = instance.exports as RnnoiseModule;
  memory = module.memory;
  // As the glue starts it: the stack's bounds, then the C constructors.
  module.emscripten_stack_init();
  module.__wasm_call_ctors();
  return module;
}

/** Grows the heap to at least `bytes` (malloc asks when a new call's state does not fit); 1 when it did. */
function growTo(memory: WasmMemory, bytes: number): number {
  try {
    memory.grow(Math.ceil((bytes - memory.buffer.byteLength) / WASM_PAGE_BYTES));
    return 1;
  } catch {
    return 0;
  }
}

function cString(memory: WasmMemory, at: number): string {
  const bytes = new Uint8Array(memory.buffer, at);
  return Buffer.from(bytes.subarray(0, bytes.indexOf(0))).toString('utf8');
}

/** One call's noise suppressor: PCM at the call's rate (8 or 16 kHz) in, the same with the noise taken out. */
export class Denoiser {
  private readonly up: Resampler;
  private readonly down: Resampler;
  /** This call's RNNoise state and frames on the shared heap. */
  private readonly state: number;
  private readonly inputAt: number;
  private readonly outputAt: number;
  /** Views of those frames, made again when the heap grows (growing detaches the old buffer). */
  private input!: Float32Array;
  private output!: Float32Array;
  /** Samples of the next frame already in `input`. */
  private filled = 0;
  /** The chunk's denoised 48 kHz frames on their way down to 8 kHz; grows to the largest chunk seen. */
  private denoised = new Int16Array(2 * FRAME);
  private destroyed = false;

  private constructor(
    private readonly module: RnnoiseModule,
    rate: DenoiseRate,
  ) {
    this.up = new Resampler(rate, 48000);
    this.down = new Resampler(48000, rate);
    this.inputAt = module.malloc(FRAME * FLOAT_BYTES);
    this.outputAt = module.malloc(FRAME * FLOAT_BYTES);
    // rnnoise_create does not check its own allocation; a heap that could give the frames can
    // almost always give the state too.
    this.state = this.inputAt && this.outputAt ? module.rnnoise_create(0) : 0;
    if (!this.state || !this.inputAt || !this.outputAt) {
      this.destroy();
      throw new Error('RNNoise: the shared heap cannot hold another call');
    }
    this.viewFrames();
  }

  /** A denoiser for one call at `rate` (the first one loads the WebAssembly module). */
  static async create(rate: DenoiseRate = 8000): Promise<Denoiser> {
    return new Denoiser(await rnnoise(), rate);
  }

  /** The denoised audio of the next chunk of the caller's PCM (see the latency above). */
  process(chunk: Int16Array): Int16Array {
    if (this.destroyed) throw new Error('RNNoise: this denoiser was destroyed');
    if (this.input.buffer !== this.module.memory.buffer) this.viewFrames();
    const samples = this.up.process(chunk);
    const frames = Math.floor((this.filled + samples.length) / FRAME);
    if (this.denoised.length < frames * FRAME) this.denoised = new Int16Array(frames * FRAME);
    const { input, output, denoised } = this;
    let produced = 0;
    for (let i = 0; i < samples.length; i++) {
      input[this.filled++] = samples[i];
      if (this.filled < FRAME) continue;
      this.module.rnnoise_process_frame(this.state, this.outputAt, this.inputAt);
      for (let j = 0; j < FRAME; j++) {
        const sample = output[j];
        denoised[produced++] = sample > 32767 ? 32767 : sample < -32768 ? -32768 : Math.round(sample);
      }
      this.filled = 0;
    }
    return this.down.process(denoised.subarray(0, produced));
  }

  /** Frees this call's state on the shared heap; the denoiser is unusable afterwards. */
  destroy(): void {
    if (this.destroyed) return;
    this.destroyed = true;
    // rnnoise_destroy reads the state it frees, so never with NULL; free(NULL) does nothing.
    if (this.state) this.module.rnnoise_destroy(this.state);
    this.module.free(this.inputAt);
    this.module.free(this.outputAt);
  }

  private viewFrames(): void {
    this.input = new Float32Array(this.module.memory.buffer, this.inputAt, FRAME);
    this.output = new Float32Array(this.module.memory.buffer, this.outputAt, FRAME);
  }
}
