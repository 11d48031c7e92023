import type { EntityManager } from '@mikro-orm/postgresql';
import { FieldErrorCollector, FieldMessages, Messages, NotFoundError, ValidationError } from '../../errors';
import type { Scope } from '../scope';
import type { CreateAssistantTestInput, UpdateAssistantTestInput } from './test.inputs';
import { BUILT_IN_TOOLS, TEST_RULES, checkTestConfig } from './test.rules';
import { AssistantTest } from './test.types';

interface TestRow {
  id: number;
  assistant_id: number;
  name: string;
  type: string;
  config: Record<string, unknown>;
  created_at: Date;
  updated_at: Date;
}

const TEST_COLUMNS = 'id, assistant_id, name, type, config, created_at, updated_at';

function asTest(row: TestRow): AssistantTest {
  return Object.assign(new AssistantTest(), { ...row, created_at: new Date(row.created_at).toISOString(), updated_at: new Date(row.updated_at).toISOString() });
}

/** The account's assistant, locked against other writers of its tests when `lock` (the count of its tests is then exact until commit); 404 when not the account's. */
async function requireAssistantRow(em: EntityManager, accountId: number, assistantId: number, lock = false): Promise<void> {
  const [row] = await em.execute(`select id from assistants where id = ? and account_id = ?${lock ? ' for no key update' : ''}`, [assistantId, accountId]);
  if (!row) throw new NotFoundError(Messages.assistantNotFound);
}

/** The names a test of the assistant may mention: its tools, then the built-ins. */
async function toolNames(em: EntityManager, assistantId: number): Promise<string[]> {
  const rows: { name: string }[] = await em.execute('select t.name from assistant_tools a join tools t on t.id = a.tool_id where a.assistant_id = ? order by t.name', [assistantId]);
  return [...rows.map((row) => row.name), ...BUILT_IN_TOOLS];
}

function checkName(errors: FieldErrorCollector, name: unknown): void {
  if (typeof name !== 'string' || !name.trim()) errors.add('name', FieldMessages.required('name'));
  else if (name.length > TEST_RULES.nameChars) errors.add('name', FieldMessages.maxLength('name', TEST_RULES.nameChars));
}

export async function listTests(scope: Scope, assistantId: number): Promise<AssistantTest[]> {
  await requireAssistantRow(scope.em, scope.accountId, assistantId);
  const rows: TestRow[] = await scope.em.execute(`select ${TEST_COLUMNS} from assistant_tests where assistant_id = ? and account_id = ? order by id`, [assistantId, scope.accountId]);
  return rows.map(asTest);
}

/**
 * A new test of the assistant, within TEST_MAX_PER_ASSISTANT: the assistant's row is locked
 * while its tests are counted and the new one written, so that creates at once cannot pass it.
 */
export async function createTest(scope: Scope, assistantId: number, input: CreateAssistantTestInput): Promise<AssistantTest> {
  return scope.em.transactional(async (tx) => {
    await requireAssistantRow(tx, scope.accountId, assistantId, true);
    const errors = new FieldErrorCollector();
    checkName(errors, input.name);
    const config = checkTestConfig(errors, input.type, input.config, await toolNames(tx, assistantId));
    errors.throwIfAny();
    const limit = scope.config.assistantTests.maxPerAssistant;
    const [{ n }] = await tx.execute<{ n: number }[]>('select count(*)::int as n from assistant_tests where assistant_id = ?', [assistantId]);
    if (n >= limit) throw new ValidationError({ assistant_id: [FieldMessages.testsPerAssistant(limit)] });
    const [row] = await tx.execute<TestRow[]>(
      `insert into assistant_tests (account_id, assistant_id, name, type, config) values (?, ?, ?, ?, ?::jsonb) returning ${TEST_COLUMNS}`,
      [scope.accountId, assistantId, input.name.trim(), input.type, JSON.stringify(config)],
    );
    return asTest(row);
  });
}

export async function requireTest(scope: Scope, id: number): Promise<AssistantTest> {
  const [row] = await scope.em.execute<TestRow[]>(`select ${TEST_COLUMNS} from assistant_tests where id = ? and account_id = ?`, [id, scope.accountId]);
  if (!row) throw new NotFoundError(Messages.assistantTestNotFound);
  return asTest(row);
}

/** Changes a test; its config, given or kept, is checked again against its type and the assistant's tools as they are now. */
export async function updateTest(scope: Scope, id: number, input: UpdateAssistantTestInput): Promise<AssistantTest> {
  return scope.em.transactional(async (tx) => {
    const [current] = await tx.execute<TestRow[]>(`select ${TEST_COLUMNS} from assistant_tests where id = ? and account_id = ? for no key update`, [id, scope.accountId]);
    if (!current) throw new NotFoundError(Messages.assistantTestNotFound);
    const errors = new FieldErrorCollector();
    if (input.name !== undefined && input.name !== null) checkName(errors, input.name);
    const type = input.type ?? current.type;
    if (input.type && input.type !== current.type && !input.config) errors.add('config', FieldMessages.required('config'));
    const config = checkTestConfig(errors, type, input.config ?? current.config, await toolNames(tx, current.assistant_id));
    errors.throwIfAny();
    const [row] = await tx.execute<TestRow[]>(
      `update assistant_tests set name = ?, type = ?, config = ?::jsonb, updated_at = now() where id = ? returning ${TEST_COLUMNS}`,
      [input.name?.trim() || current.name, type, JSON.stringify(config), id],
    );
    return asTest(row);
  });
}

/** Deletes a test; the runs that ran it keep their results. */
export async function deleteTest(scope: Scope, id: number): Promise<void> {
  const rows = await scope.em.execute('delete from assistant_tests where id = ? and account_id = ? returning id', [id, scope.accountId]);
  if (!rows.length) throw new NotFoundError(Messages.assistantTestNotFound);
}
