import { DomainError, FieldErrorCollector, FieldMessages, Messages, NotFoundError } from '../../errors';
import { enqueueIngestion } from './knowledge.ingest';
import { checkHttpUrl, checkIntRange, checkLength, checkOneOf } from '../../lib/checks';
import { findForUpdate } from '../../db/locks';
import { Account } from '../accounts/account.entity';
import type { Scope } from '../scope';
import { KnowledgeBase } from './knowledge-base.entity';
import { KnowledgeDocument, type KnowledgeDocumentLink } from './knowledge-document.entity';
import type { CreateKnowledgeBaseInput, CreateKnowledgeDocumentInput, UpdateKnowledgeBaseInput, UpdateKnowledgeDocumentInput } from './knowledge.inputs';
import { checkFile } from './knowledge.readers';
import { DEFAULT_RELATIVE_LINKS, DOCUMENT_TYPES, FILE_TYPES, MAX_DESCRIPTION, MAX_NAME, SEARCH_LANGUAGES, type DocumentType } from './knowledge.rules';

/** A file sent with a document (the REST route's multipart `file`, staged by the adapter): its size, and its bytes. */
export interface UploadedFile {
  field: string;
  bytes: number;
  buffer(): Promise<Buffer>;
}

function checkName(errors: FieldErrorCollector, name: string | null | undefined, required: boolean): string | undefined {
  if (name === null || (required && name === undefined)) {
    errors.add('name', FieldMessages.required('name'));
    return undefined;
  }
  return name === undefined ? undefined : (checkLength(errors, 'name', name, 1, MAX_NAME) ?? undefined);
}

/** A description: blank or null clears it. */
function checkDescription(errors: FieldErrorCollector, description: string | null | undefined): string | null | undefined {
  if (description === undefined) return undefined;
  const text = description?.trim() ?? '';
  if (text.length > MAX_DESCRIPTION) {
    errors.add('description', FieldMessages.maxLength('description', MAX_DESCRIPTION));
    return undefined;
  }
  return text || null;
}

function checkLanguage(errors: FieldErrorCollector, language: string | null | undefined): string | undefined {
  if (language == null) return undefined;
  const name = language.trim().toLowerCase();
  return checkOneOf(errors, 'language', name, SEARCH_LANGUAGES) ? name : undefined;
}

/** The bases' statuses and counts, from their documents and the assistants that use them, in one statement. */
async function withStats(scope: Scope, bases: KnowledgeBase[]): Promise<KnowledgeBase[]> {
  if (bases.length === 0) return bases;
  const rows: { id: number; documents: number; processing: number; failed: number; assistants: number }[] = await scope.em.execute(
    `select b.id, d.documents, d.processing, d.failed, (select count(*) from assistants a where a.knowledgebase_id = b.id)::int as assistants
       from unnest(?::int[]) as b(id),
            lateral (select count(*)::int as documents,
                            count(*) filter (where status = 'processing')::int as processing,
                            count(*) filter (where status = 'failed')::int as failed
                       from knowledge_documents where knowledge_base_id = b.id) d`,
    [`{${bases.map((base) => base.id).join(',')}}`],
  );
  const stats = new Map(rows.map((row) => [row.id, row]));
  for (const base of bases) {
    const row = stats.get(base.id);
    base.documents_count = row?.documents ?? 0;
    base.assistants_count = row?.assistants ?? 0;
    base.status = !row?.documents ? 'empty' : row.processing > 0 ? 'processing' : row.failed > 0 ? 'failed' : 'ready';
  }
  return bases;
}

/**
 * Creates a knowledge base within the plan's limit (KB_MAX_BASES). The account row is locked
 * while the bases are counted, so parallel creates cannot pass the limit together.
 */
export async function createKnowledgeBase(scope: Scope, input: CreateKnowledgeBaseInput): Promise<KnowledgeBase> {
  const errors = new FieldErrorCollector();
  const name = checkName(errors, input.name, true);
  const description = checkDescription(errors, input.description);
  const language = checkLanguage(errors, input.language);
  errors.throwIfAny();
  const base = await scope.em.transactional(async (em) => {
    await em.execute('select id from accounts where id = ? for no key update', [scope.accountId]);
    const limit = scope.config.knowledge.maxBases;
    if ((await em.count(KnowledgeBase, { account: scope.accountId })) >= limit) {
      throw new DomainError('PLAN_LIMIT', Messages.knowledgeBasePlanLimit(limit));
    }
    const created = em.create(KnowledgeBase, {
      account: em.getReference(Account, scope.accountId),
      name: name!,
      description: description ?? null,
      language: language ?? 'portuguese',
    });
    await em.flush();
    return created;
  });
  return base;
}

export async function requireKnowledgeBase(scope: Scope, id: number): Promise<KnowledgeBase> {
  const base = await scope.em.findOne(KnowledgeBase, { id, account: scope.accountId });
  if (!base) throw new NotFoundError(Messages.knowledgeBaseNotFound);
  return base;
}

export async function getKnowledgeBase(scope: Scope, id: number): Promise<KnowledgeBase> {
  const [base] = await withStats(scope, [await requireKnowledgeBase(scope, id)]);
  return base;
}

export async function listKnowledgeBases(scope: Scope): Promise<KnowledgeBase[]> {
  return withStats(scope, await scope.em.find(KnowledgeBase, { account: scope.accountId }, { orderBy: { id: 'asc' } }));
}

/** Renames or describes a base; a new language re-indexes its chunks (their search vectors are generated from it). */
export async function updateKnowledgeBase(scope: Scope, id: number, input: UpdateKnowledgeBaseInput): Promise<KnowledgeBase> {
  const errors = new FieldErrorCollector();
  const name = checkName(errors, input.name, false);
  const description = checkDescription(errors, input.description);
  const language = checkLanguage(errors, input.language);
  errors.throwIfAny();
  await scope.em.transactional(async (em) => {
    const base = await findForUpdate(em, KnowledgeBase, id, scope.accountId);
    if (!base) throw new NotFoundError(Messages.knowledgeBaseNotFound);
    if (name !== undefined) base.name = name;
    if (description !== undefined) base.description = description;
    if (language !== undefined && language !== base.language) {
      base.language = language;
      await em.execute('update knowledge_chunks set language = ?::regconfig where knowledge_base_id = ?', [language, id]);
    }
    await em.flush();
  });
  scope.em.clear();
  return getKnowledgeBase(scope, id);
}

/** Deletes a base with its documents and their chunks (the foreign keys cascade). */
export async function deleteKnowledgeBase(scope: Scope, id: number): Promise<void> {
  const deleted = await scope.em.nativeDelete(KnowledgeBase, { id, account: scope.accountId });
  if (deleted === 0) throw new NotFoundError(Messages.knowledgeBaseNotFound);
}

interface DocumentValues {
  name: string;
  description: string | null;
  type: DocumentType;
  url: string | null;
  links: KnowledgeDocumentLink[];
  relative_links_limit: number | null;
  /** What ingestion reads: the content as UTF-8, or the file's bytes; null for a website. */
  source: Buffer | null;
}

/** Checks a new document, its type's fields and its size against the plan; reads an uploaded file whole (it is at most KB_MAX_DOCUMENT_BYTES). */
async function documentValues(scope: Scope, input: CreateKnowledgeDocumentInput, upload: UploadedFile | undefined): Promise<DocumentValues> {
  const { maxDocumentBytes, maxWebsitePages } = scope.config.knowledge;
  const errors = new FieldErrorCollector();
  const name = checkName(errors, input.name, true);
  const description = checkDescription(errors, input.description) ?? null;
  const type = input.type?.trim().toLowerCase();
  if (!checkOneOf(errors, 'type', type ?? '', DOCUMENT_TYPES)) {
    errors.throwIfAny();
  }
  const values: DocumentValues = { name: name!, description, type: type as DocumentType, url: null, links: [], relative_links_limit: null, source: null };
  if (values.type === 'website') {
    if (input.url != null && input.url.trim() !== '') values.url = checkHttpUrl(errors, 'url', input.url);
    const links = input.links ?? [];
    if (links.length > maxWebsitePages) errors.add('links', FieldMessages.maxItems('links', maxWebsitePages));
    links.forEach((item, index) => {
      const link = checkHttpUrl(errors, `links.${index}.link`, item.link ?? '');
      if (link) values.links.push({ link });
    });
    if (!values.url && links.length === 0 && !errors.has('url')) errors.add('url', FieldMessages.urlOrLinks);
    const limit = input.relative_links_limit ?? Math.min(DEFAULT_RELATIVE_LINKS, maxWebsitePages);
    if (checkIntRange(errors, 'relative_links_limit', limit, 1, maxWebsitePages)) values.relative_links_limit = limit;
  } else if (values.type === 'text') {
    const content = input.content ?? '';
    if (content.trim() === '') errors.add('content', FieldMessages.required('content'));
    else if (Buffer.byteLength(content, 'utf8') > maxDocumentBytes) errors.add('content', FieldMessages.contentTooLarge('content', maxDocumentBytes));
    else if (content.includes('\u0000')) errors.add('content', FieldMessages.unstorableText('content'));
    else values.source = Buffer.from(content, 'utf8');
  } else if (FILE_TYPES.includes(values.type)) {
    if (!upload) errors.add('file', FieldMessages.fileRequiredForType(values.type));
    else if (upload.bytes > maxDocumentBytes) errors.add('file', FieldMessages.fileTooLarge('file', maxDocumentBytes));
    else {
      const bytes = await upload.buffer();
      const problem = checkFile(values.type, bytes);
      if (problem) errors.add('file', problem);
      else values.source = bytes;
    }
  }
  errors.throwIfAny();
  return values;
}

/**
 * Adds a document to a base within the plan's limit (KB_MAX_DOCUMENTS), and its ingestion job
 * in the same transaction: the document exists with its job, or not at all. The base's row is
 * locked while its documents are counted, so parallel creates cannot pass the limit together.
 */
export async function createKnowledgeDocument(
  scope: Scope,
  knowledgeBaseId: number,
  input: CreateKnowledgeDocumentInput,
  upload?: UploadedFile,
): Promise<KnowledgeDocument> {
  await requireKnowledgeBase(scope, knowledgeBaseId);
  const { source, ...values } = await documentValues(scope, input, upload);
  return scope.em.transactional(async (em) => {
    const base = await findForUpdate(em, KnowledgeBase, knowledgeBaseId, scope.accountId);
    if (!base) throw new NotFoundError(Messages.knowledgeBaseNotFound);
    const limit = scope.config.knowledge.maxDocuments;
    if ((await em.count(KnowledgeDocument, { knowledge_base: knowledgeBaseId })) >= limit) {
      throw new DomainError('PLAN_LIMIT', Messages.knowledgeDocumentPlanLimit(limit));
    }
    const document = em.create(KnowledgeDocument, { ...values, knowledge_base: base, source_bytes: source?.length ?? 0 });
    await em.flush();
    if (source) await em.execute('update knowledge_documents set source = ? where id = ?', [source, document.id]);
    await enqueueIngestion(em, document.id);
    return document;
  });
}

export async function requireKnowledgeDocument(scope: Scope, knowledgeBaseId: number, id: number): Promise<KnowledgeDocument> {
  await requireKnowledgeBase(scope, knowledgeBaseId);
  const document = await scope.em.findOne(KnowledgeDocument, { id, knowledge_base: knowledgeBaseId });
  if (!document) throw new NotFoundError(Messages.knowledgeDocumentNotFound);
  return document;
}

export async function listKnowledgeDocuments(scope: Scope, knowledgeBaseId: number): Promise<KnowledgeDocument[]> {
  await requireKnowledgeBase(scope, knowledgeBaseId);
  return scope.em.find(KnowledgeDocument, { knowledge_base: knowledgeBaseId }, { orderBy: { id: 'asc' } });
}

export async function updateKnowledgeDocument(scope: Scope, knowledgeBaseId: number, id: number, input: UpdateKnowledgeDocumentInput): Promise<KnowledgeDocument> {
  const errors = new FieldErrorCollector();
  const name = checkName(errors, input.name, false);
  const description = checkDescription(errors, input.description);
  errors.throwIfAny();
  const document = await requireKnowledgeDocument(scope, knowledgeBaseId, id);
  if (name !== undefined) document.name = name;
  if (description !== undefined) document.description = description;
  await scope.em.flush();
  return document;
}

/**
 * Reads a document again (a website that changed, a document that failed): `processing`, its
 * reason cleared, and its ingestion job, in one transaction; it keeps its chunks, searchable,
 * until the new ones replace them in the ingestion's own transaction. A document still being
 * ingested gets one more run after the one under way (the job's key replaces a job not yet
 * started).
 */
export async function reingestKnowledgeDocument(scope: Scope, knowledgeBaseId: number, id: number): Promise<KnowledgeDocument> {
  await requireKnowledgeDocument(scope, knowledgeBaseId, id);
  await scope.em.transactional(async (em) => {
    const [document] = await em.execute(
      `update knowledge_documents set status = 'processing', failure = null, updated_at = now() where id = ? and knowledge_base_id = ? returning id`,
      [id, knowledgeBaseId],
    );
    if (!document) throw new NotFoundError(Messages.knowledgeDocumentNotFound);
    await enqueueIngestion(em, id);
  });
  scope.em.clear();
  return requireKnowledgeDocument(scope, knowledgeBaseId, id);
}

/** Deletes a document with its chunks; its ingestion, if still running, finds it gone and stops. */
export async function deleteKnowledgeDocument(scope: Scope, knowledgeBaseId: number, id: number): Promise<void> {
  await requireKnowledgeBase(scope, knowledgeBaseId);
  const deleted = await scope.em.nativeDelete(KnowledgeDocument, { id, knowledge_base: knowledgeBaseId });
  if (deleted === 0) throw new NotFoundError(Messages.knowledgeDocumentNotFound);
}
