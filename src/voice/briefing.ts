import type { Config } from '../config';
import type { Turn } from '../modules/calls/call.conversation';
import { transcriptText } from '../modules/calls/call.conversation';

/**
 * What the person a warm transfer reaches hears before the caller joins (design.md, "Calls
 * that act"): a few sentences on who the caller is and what they want, written from the call's
 * transcript by OpenAI's chat completions (the post-call model) in the assistant's language.
 * Without that model, or when it does not answer in time, the caller's last words stand in.
 */
const REQUEST_TIMEOUT_MS = 6000;
/** The longest briefing said (Twilio's `<Say>` takes 4,096 characters). */
const MAX_CHARS = 600;

const INTRO: Record<string, string> = {
  pt: 'Transferência do assistente virtual.',
  en: 'A call transferred by the virtual assistant.',
  es: 'Una llamada transferida por el asistente virtual.',
  de: 'Ein Anruf, weitergeleitet vom virtuellen Assistenten.',
};
const SAID: Record<string, string> = { pt: 'O cliente disse:', en: 'The customer said:', es: 'El cliente dijo:', de: 'Der Kunde sagte:' };

type OpenAiSettings = NonNullable<Config['voice']['openai']>;

export async function briefing(openai: OpenAiSettings | null, turns: Turn[], language: string | null): Promise<string> {
  const conversation = turns.filter((turn) => turn.speaker !== 'system');
  if (openai && conversation.length) {
    const written = await summary(openai, conversation, language).catch(() => null);
    if (written) return written.slice(0, MAX_CHARS);
  }
  const intro = INTRO[language ?? ''] ?? INTRO.en;
  const last = conversation.filter((turn) => turn.speaker === 'customer').at(-1)?.text;
  return (last ? `${intro} ${SAID[language ?? ''] ?? SAID.en} ${last}` : intro).slice(0, MAX_CHARS);
}

async function summary(openai: OpenAiSettings, turns: Turn[], language: string | null): Promise<string | null> {
  const response = await fetch(`${openai.baseUrl}/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${openai.apiKey}`, 'content-type': 'application/json' },
    signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    body: JSON.stringify({
      model: openai.postCallModel,
      messages: [
        {
          role: 'system',
          content:
            'A phone call between an AI assistant and a customer is being transferred to a person, who will hear what you write before the customer joins. ' +
            `In two or three short spoken sentences${language ? ` in the language whose ISO 639-1 code is ${language}` : ''}, say who the customer is and what they need. No greeting, no lists, no markdown.`,
        },
        { role: 'user', content: transcriptText(turns) },
      ],
    }),
  });
  if (!response.ok) return null;
  const body = (await response.json()) as { choices?: { message?: { content?: unknown } }[] };
  const content = body.choices?.[0]?.message?.content;
  return typeof content === 'string' && content.trim() ? content.trim() : null;
}
