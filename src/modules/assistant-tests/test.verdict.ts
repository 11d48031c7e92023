import { isObject, type ChatMessage } from './test.rules';

/** A judge's verdict on one success criterion. */
export interface Verdict {
  criterion: string;
  passed: boolean;
  reason: string;
}

/** The judge's answer, as the contract fixes it: one verdict per criterion, in the criteria's order. */
export const VERDICT_SCHEMA = {
  name: 'test_verdicts',
  schema: {
    type: 'object',
    properties: {
      criteria: {
        type: 'array',
        items: {
          type: 'object',
          properties: { criterion: { type: 'string' }, passed: { type: 'boolean' }, reason: { type: 'string' } },
          required: ['criterion', 'passed', 'reason'],
          additionalProperties: false,
        },
      },
    },
    required: ['criteria'],
    additionalProperties: false,
  },
};

export const JUDGE_SYSTEM =
  'You judge a conversation between an AI assistant and a customer against success criteria. For each criterion, in the order given, ' +
  'decide whether the assistant met it, and say why in one sentence. Answer with JSON only: {"criteria": [{"criterion": <the criterion, copied exactly>, "passed": <true|false>, "reason": <why>}]}.';

/** What the judge reads: the criteria in order, the examples, and the transcript. */
export function judgePrompt(criteria: readonly string[], transcript: readonly ChatMessage[], examples: { success?: readonly string[]; failure?: readonly string[] } = {}): string {
  const lines = ['Success criteria, in order:', ...criteria.map((criterion, i) => `${i + 1}. ${criterion}`)];
  if (examples.success?.length) lines.push('', 'Examples of answers that succeed:', ...examples.success.map((example) => `- ${example}`));
  if (examples.failure?.length) lines.push('', 'Examples of answers that fail:', ...examples.failure.map((example) => `- ${example}`));
  lines.push('', 'The conversation:', ...transcript.map((message) => `${message.role === 'user' ? 'Customer' : 'Assistant'}: ${message.content}`));
  return lines.join('\n');
}

/**
 * The judge's text as verdicts, or why it does not fit: not JSON, not the schema's shape, a
 * count other than the criteria's, a verdict for another criterion than the one in its place.
 */
export function readVerdicts(text: string, criteria: readonly string[]): { verdicts: Verdict[] } | { misfit: string } {
  let answer: unknown;
  try {
    answer = JSON.parse(text);
  } catch {
    return { misfit: 'the judge’s answer is not JSON' };
  }
  if (!isObject(answer) || !Array.isArray(answer.criteria)) return { misfit: 'the judge’s answer has no criteria list' };
  if (answer.criteria.length !== criteria.length) return { misfit: `the judge gave ${answer.criteria.length} verdict(s) for ${criteria.length} criteria` };
  const verdicts: Verdict[] = [];
  for (const [i, item] of answer.criteria.entries()) {
    if (!isObject(item) || typeof item.criterion !== 'string' || typeof item.passed !== 'boolean' || typeof item.reason !== 'string') {
      return { misfit: `the judge’s verdict ${i + 1} is not {criterion: string, passed: boolean, reason: string}` };
    }
    if (normalised(item.criterion) !== normalised(criteria[i])) return { misfit: `the judge’s verdict ${i + 1} is for another criterion than criterion ${i + 1}` };
    // The criterion as the test wrote it, whatever spacing the model gave it back with.
    verdicts.push({ criterion: criteria[i], passed: item.passed, reason: item.reason.slice(0, MAX_REASON_CHARS) });
  }
  return { verdicts };
}

/** A reason is a sentence; a model that writes pages has the rest cut. */
const MAX_REASON_CHARS = 2000;

const normalised = (text: string) => text.replace(/\s+/g, ' ').trim().toLowerCase();
