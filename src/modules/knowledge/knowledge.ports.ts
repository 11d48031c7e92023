/**
 * What ingestion needs from outside the domain to read a file: the readers of the formats that
 * need a parser (src/documents/ implements them; the job's task plugs them in). Each resolves
 * with the file's text or rejects with an UnreadableDocumentError (knowledge.readers.ts) whose
 * message is the reason the document failed; any other rejection is a fault of ours, retried.
 */
export interface DocumentReaders {
  /** A PDF's text layer, its pages separated by blank lines. */
  pdf(file: Buffer): Promise<string>;
  /** A DOCX's body text, its paragraphs separated by blank lines. */
  docx(file: Buffer): Promise<string>;
}

/**
 * An embeddings model behind the OpenAI-compatible `/embeddings` (EMBEDDINGS_MODEL; an adapter
 * outside the domain implements it, boot plugs it in). Rejects when the model cannot answer.
 */
export interface Embedder {
  /** The model's name, kept with the vectors it made: vectors of two models are not compared. */
  readonly model: string;
  /** One vector per text, in the texts' order. */
  embed(texts: readonly string[]): Promise<Float32Array[]>;
}
