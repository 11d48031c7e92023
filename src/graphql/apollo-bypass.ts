import type { IncomingMessage, ServerResponse } from 'node:http';
import type { DocumentNode, OperationDefinitionNode } from 'graphql';
import { graphqlOperations } from '../metrics';
import { runAhead, type OperationRunner } from './compiled';

/** A document Apollo has parsed, validated and run, and the operations of it that it ran. */
interface Accepted {
  document: DocumentNode;
  /** By the name a request gave (null: none, the document's only operation). */
  operations: Map<string | null, OperationDefinitionNode>;
}

export interface DirectLimits {
  /**
   * The query texts kept, all together, in characters. A parsed document takes about 60 bytes
   * of heap a character of its text: 300,000 characters are about 18 MB, with Apollo's own
   * store of documents at 30 MB.
   */
  characters: number;
  /** Longer query texts are left to Apollo each time. */
  queryCharacters: number;
  /** Distinct Accept headers whose content type is known. */
  acceptHeaders: number;
}

const DEFAULT_LIMITS: DirectLimits = { characters: 300_000, queryCharacters: 16_384, acceptHeaders: 64 };

/**
 * Answers a GraphQL request without Apollo's request pipeline when Apollo would answer it the
 * same: a POST whose document Apollo has already accepted (parsed, validated within the
 * limits, resolved to an operation that is not a subscription, and run), whose result is data
 * and no errors, for an Accept header Apollo has already chosen a content type for. For a
 * request whose document it knows, Apollo's pipeline costs more than running the operation
 * (hashing the text, negotiating the Accept header, the plugins' hooks): a sixth of a get-call's
 * instructions in the process.
 *
 * What Apollo checks before it runs an operation depends on the document alone (validation,
 * the armour's limits, the operation's type) or holds for every request that reaches it (the
 * CSRF rule is met by the Authorization header every request here carries). Anything else
 * goes to Apollo: GET, an `extensions` field, a body Apollo would refuse, a document it has not
 * accepted yet. A result with errors goes to Apollo too, with the operation's result already
 * in hand (`runAhead`): Apollo formats and logs its errors, sets its status and runs the
 * plugins, and the operation runs once either way.
 */
export class DirectPath {
  private readonly accepted = new Map<string, Accepted>();
  private characters = 0;
  private readonly contentTypes = new Map<string, string>();

  constructor(
    private readonly runner: OperationRunner,
    private readonly limits: DirectLimits = DEFAULT_LIMITS,
  ) {}

  /** Called by Apollo's executor: Apollo accepted this document, and runs this operation of it for a request with this name. */
  accept(query: string, operationName: string | undefined, document: DocumentNode, operation: OperationDefinitionNode): void {
    if (operation.operation === 'subscription' || query.length > this.limits.queryCharacters) return;
    let entry = this.accepted.get(query);
    if (entry?.document !== document) {
      if (entry) this.forget(query);
      entry = { document, operations: new Map() };
      this.accepted.set(query, entry);
      this.characters += query.length;
      // The oldest documents go first; a document in use comes back through Apollo.
      for (const oldest of this.accepted.keys()) {
        if (this.characters <= this.limits.characters) break;
        this.forget(oldest);
      }
    }
    entry.operations.set(operationName ?? null, operation);
  }

  /** Called with Apollo's answer to a POST: the content type it chose for the request's Accept header. */
  answered(accept: string | undefined, status: number, contentType: string | undefined): void {
    // A POST answered 200 carries one operation's result, in the type chosen from Accept alone.
    const key = accept ?? '';
    if (status !== 200 || contentType === undefined || this.contentTypes.has(key)) return;
    if (this.contentTypes.size < this.limits.acceptHeaders && key.length <= 1024) this.contentTypes.set(key, contentType);
  }

  /**
   * Runs the request's operation when Apollo has accepted its document, and answers it when
   * Apollo would answer it the same. False when Apollo must answer: then the result, if the
   * operation ran, waits on the context for Apollo's executor.
   */
  async answer(req: IncomingMessage, res: ServerResponse, body: unknown, context: object): Promise<boolean> {
    const request = this.match(req, body);
    if (!request) return false;
    const running = this.runner.run(request.document, request.operationName, request.variables, context);
    const result = await running.catch(() => null);
    const contentType = this.contentTypes.get(req.headers.accept ?? '');
    if (result === null || result.errors !== undefined || result.data == null || result.extensions !== undefined || contentType === undefined) {
      runAhead(context, running);
      return false;
    }
    graphqlOperations.inc({ type: request.operation.operation, outcome: 'ok' });
    res.setHeader('content-type', contentType);
    res.setHeader('cache-control', 'no-store');
    res.statusCode = 200;
    // What Apollo writes for a result with data alone.
    res.end(`{"data":${JSON.stringify(result.data)}}\n`);
    return true;
  }

  private match(req: IncomingMessage, body: unknown) {
    if (req.method !== 'POST' || !req.headers.authorization || !isRecord(body)) return null;
    const { query, operationName, variables, extensions } = body;
    if (typeof query !== 'string' || (extensions !== undefined && extensions !== null)) return null;
    if (operationName !== undefined && operationName !== null && typeof operationName !== 'string') return null;
    if (variables !== undefined && variables !== null && !isRecord(variables)) return null;
    const entry = query.length <= this.limits.queryCharacters ? this.accepted.get(query) : undefined;
    const operation = entry?.operations.get(operationName ?? null);
    if (!entry || !operation) return null;
    // The operation's own name, as Apollo's executor gives it: both run the same compiled operation.
    return { document: entry.document, operation, operationName: operation.name?.value ?? null, variables: variables ?? undefined };
  }

  private forget(query: string): void {
    this.accepted.delete(query);
    this.characters -= query.length;
  }
}

/** A JSON object, as Apollo takes a body or its variables. */
function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
