import { Messages } from '../../errors';
import type { JsonSchema } from '../openapi.components';
import { isPlainObject } from '../coerce';
import { messageAnd, messageOnly } from '../openapi';
import { queryVariables, type Route, type RouteRequest } from './route';

/**
 * Knowledge bases and their documents, on the original platform's paths and envelopes (its MCP
 * server's ten tools, and its API reference): lists and reads as `{data}`, writes as
 * `{message, data}`, deletes as `{message}`.
 */
const BASE_FIELDS = 'id name description language status status_label documents_count assistants_count created_at updated_at';
const DOCUMENT_FIELDS = `id knowledgebase_id name description type type_label url links { link } relative_links_limit source_bytes
  status status_label failure_reason chunks_count created_at updated_at`;

const dataOnly = (inner: JsonSchema): JsonSchema => ({ type: 'object', properties: { data: inner }, required: ['data'] });

/**
 * A document's input from a JSON body, or from a multipart form (a file's `name`, `type`,
 * `description`, with the file itself, which the shim staged and the resolver reads from the
 * context). A form's `links` may come as a JSON string.
 */
function documentInput(req: RouteRequest): Record<string, unknown> {
  if (!isPlainObject(req.body)) return { kb: req.params.kb, input: req.body };
  const { file: _file, ...input } = req.body;
  if (typeof input.links === 'string') {
    try {
      input.links = JSON.parse(input.links);
    } catch {
      // Left as it is: the input type refuses a string on `links`.
    }
  }
  return { kb: req.params.kb, input };
}

export const knowledgeRoutes: Route[] = [
  {
    method: 'GET',
    path: '/user/knowledgebases',
    summary: 'The account’s knowledge bases, oldest first, with their status and document count',
    envelope: dataOnly,
    document: `query KnowledgeBases { knowledgeBases { ${BASE_FIELDS} } }`,
    variables: () => ({}),
    respond: (data) => ({ body: { data: data.knowledgeBases } }),
  },
  {
    method: 'POST',
    path: '/user/knowledgebases',
    summary: 'Create a knowledge base, within the plan’s limit (KB_MAX_BASES)',
    status: 201,
    body: 'input',
    errors: ['PLAN_LIMIT'],
    envelope: messageAnd(),
    document: `mutation CreateKnowledgeBase($input: CreateKnowledgeBaseInput!) { createKnowledgeBase(input: $input) { ${BASE_FIELDS} } }`,
    variables: (req) => ({ input: req.body }),
    respond: (data) => ({ body: { message: Messages.knowledgeBaseCreated, data: data.createKnowledgeBase } }),
  },
  {
    method: 'GET',
    path: '/user/knowledgebases/{id}',
    summary: 'Get a knowledge base',
    envelope: dataOnly,
    document: `query KnowledgeBase($id: Int!) { knowledgeBase(id: $id) { ${BASE_FIELDS} } }`,
    variables: (req) => ({ id: req.params.id }),
    respond: (data) => ({ body: { data: data.knowledgeBase } }),
    notFound: Messages.knowledgeBaseNotFound,
  },
  {
    method: 'PUT',
    path: '/user/knowledgebases/{id}',
    summary: 'Rename or describe a knowledge base, or change its search language (its chunks are re-indexed)',
    body: 'input',
    envelope: messageAnd(),
    document: `mutation UpdateKnowledgeBase($id: Int!, $input: UpdateKnowledgeBaseInput!) { updateKnowledgeBase(id: $id, input: $input) { ${BASE_FIELDS} } }`,
    variables: (req) => ({ id: req.params.id, input: req.body }),
    respond: (data) => ({ body: { message: Messages.knowledgeBaseUpdated, data: data.updateKnowledgeBase } }),
    notFound: Messages.knowledgeBaseNotFound,
  },
  {
    method: 'DELETE',
    path: '/user/knowledgebases/{id}',
    summary: 'Delete a knowledge base with its documents and their chunks',
    envelope: messageOnly,
    document: `mutation DeleteKnowledgeBase($id: Int!) { deleteKnowledgeBase(id: $id) }`,
    variables: (req) => ({ id: req.params.id }),
    respond: () => ({ body: { message: Messages.knowledgeBaseDeleted } }),
    notFound: Messages.knowledgeBaseNotFound,
  },
  {
    method: 'GET',
    path: '/user/knowledgebases/{id}/search',
    summary: 'Full-text search of a knowledge base’s chunks, best first (PostgreSQL’s, in the base’s language): for people testing their documents',
    query: ['q', 'limit'],
    envelope: dataOnly,
    document: `query SearchKnowledgeBase($id: Int!, $q: String!, $limit: Int) {
      searchKnowledgeBase(id: $id, q: $q, limit: $limit) { document_id chunk_id content score }
    }`,
    // `q` always goes: a missing one is the service's 422 on `q`, not the schema's.
    variables: (req) => ({ id: req.params.id, q: req.query.get('q') ?? '', ...queryVariables(req.query, ['limit']) }),
    respond: (data) => ({ body: { data: data.searchKnowledgeBase } }),
    notFound: Messages.knowledgeBaseNotFound,
  },
  {
    method: 'GET',
    path: '/user/knowledgebases/{kb}/documents',
    summary: 'A knowledge base’s documents, oldest first, with their status (processing, ready, failed) and the reason of a failure',
    envelope: dataOnly,
    document: `query KnowledgeDocuments($kb: Int!) { knowledgeDocuments(knowledgebase_id: $kb) { ${DOCUMENT_FIELDS} } }`,
    variables: (req) => ({ kb: req.params.kb }),
    respond: (data) => ({ body: { data: data.knowledgeDocuments } }),
    notFound: Messages.knowledgeBaseNotFound,
  },
  {
    method: 'POST',
    path: '/user/knowledgebases/{kb}/documents',
    summary:
      'Add a document, within the plan’s limits (KB_MAX_DOCUMENTS, KB_MAX_DOCUMENT_BYTES, KB_MAX_WEBSITE_PAGES): a website (url or links), a text (content), or a file (pdf, docx, txt) as multipart/form-data; it is ingested on the job queue (status processing, then ready or failed)',
    status: 201,
    body: 'input',
    errors: ['PLAN_LIMIT'],
    multipart: {
      file: 'file',
      maxBytes: (config) => config.knowledge.maxDocumentBytes,
      fields: {
        file: { type: 'string', format: 'binary', description: 'The document (pdf, docx, or UTF-8 txt); at most KB_MAX_DOCUMENT_BYTES.' },
        name: { type: 'string' },
        description: { type: 'string' },
        type: { type: 'string', enum: ['pdf', 'docx', 'txt'] },
      },
    },
    envelope: messageAnd(),
    document: `mutation CreateKnowledgeDocument($kb: Int!, $input: CreateKnowledgeDocumentInput!) {
      createKnowledgeDocument(knowledgebase_id: $kb, input: $input) { ${DOCUMENT_FIELDS} }
    }`,
    variables: documentInput,
    respond: (data) => ({ body: { message: Messages.knowledgeDocumentCreated, data: data.createKnowledgeDocument } }),
    notFound: Messages.knowledgeBaseNotFound,
  },
  {
    method: 'GET',
    path: '/user/knowledgebases/{kb}/documents/{doc}',
    summary: 'Get a document of a knowledge base',
    envelope: dataOnly,
    document: `query KnowledgeDocument($kb: Int!, $doc: Int!) { knowledgeDocument(knowledgebase_id: $kb, id: $doc) { ${DOCUMENT_FIELDS} } }`,
    variables: (req) => ({ kb: req.params.kb, doc: req.params.doc }),
    respond: (data) => ({ body: { data: data.knowledgeDocument } }),
    notFound: Messages.knowledgeDocumentNotFound,
  },
  {
    method: 'PUT',
    path: '/user/knowledgebases/{kb}/documents/{doc}',
    summary: 'Rename or describe a document (its content is replaced by deleting it and creating it again)',
    body: 'input',
    envelope: messageAnd(),
    document: `mutation UpdateKnowledgeDocument($kb: Int!, $doc: Int!, $input: UpdateKnowledgeDocumentInput!) {
      updateKnowledgeDocument(knowledgebase_id: $kb, id: $doc, input: $input) { ${DOCUMENT_FIELDS} }
    }`,
    variables: (req) => ({ kb: req.params.kb, doc: req.params.doc, input: req.body }),
    respond: (data) => ({ body: { message: Messages.knowledgeDocumentUpdated, data: data.updateKnowledgeDocument } }),
    notFound: Messages.knowledgeDocumentNotFound,
  },
  {
    method: 'POST',
    path: '/user/knowledgebases/{kb}/documents/{doc}/reingest',
    summary: 'Read a document again (a website that changed, a document that failed): processing until its new chunks replace the old, which stay searchable meanwhile',
    envelope: messageAnd(),
    document: `mutation ReingestKnowledgeDocument($kb: Int!, $doc: Int!) { reingestKnowledgeDocument(knowledgebase_id: $kb, id: $doc) { ${DOCUMENT_FIELDS} } }`,
    variables: (req) => ({ kb: req.params.kb, doc: req.params.doc }),
    respond: (data) => ({ body: { message: Messages.knowledgeDocumentReingesting, data: data.reingestKnowledgeDocument } }),
    notFound: Messages.knowledgeDocumentNotFound,
  },
  {
    method: 'DELETE',
    path: '/user/knowledgebases/{kb}/documents/{doc}',
    summary: 'Delete a document and its chunks',
    envelope: messageOnly,
    document: `mutation DeleteKnowledgeDocument($kb: Int!, $doc: Int!) { deleteKnowledgeDocument(knowledgebase_id: $kb, id: $doc) }`,
    variables: (req) => ({ kb: req.params.kb, doc: req.params.doc }),
    respond: () => ({ body: { message: Messages.knowledgeDocumentDeleted } }),
    notFound: Messages.knowledgeDocumentNotFound,
  },
];
