import { Migration } from '@mikro-orm/migrations';

/**
 * Voices name the text-to-speech vendor that speaks them and that vendor's id of the voice,
 * both or neither; a voice with neither (every voice until now) is spoken by the first
 * configured vendor's default voice. The public catalogue gains real voices of each vendor,
 * by the ids their APIs take:
 * - ElevenLabs: the premade voices of GET /v1/voices, as an answer of 2026 lists them
 *   (sheikgulf13/zoft_agent_saas_copy utility/eleven-labs-voice.js keeps an earlier answer). The
 *   legacy ones, Rachel (21m00Tcm4TlvDq8ikWAM) among them, were retired on 2026-02-28
 *   (ElevenLabs' help centre, quoted in vercel/ai#11742) and answer 404 since, so they are left
 *   out. Each speaks every catalogue language through the multilingual models.
 * - Cartesia: a woman's and a man's voice for each catalogue language Cartesia's voice library
 *   has (Cartesia's GET /voices as exported in hsakamotoFG/speaking-meeting-bot
 *   config/available_voices.md, the same ids as SignalWire's Cartesia voice table); it has no
 *   Arabic voice, and one voice only in Dutch and Turkish.
 * - OpenAI: the built-in voices of POST /audio/speech (openai-node 6.49,
 *   resources/audio/speech.d.ts), whose id is the name.
 */
const VOICES: [name: string, provider: 'elevenlabs' | 'cartesia' | 'openai', id: string][] = [
  ['Sarah', 'elevenlabs', 'EXAVITQu4vr4xnSDxMaL'],
  ['Roger', 'elevenlabs', 'CwhRBWXzGAHq8TQ4Fs17'],
  ['Laura', 'elevenlabs', 'FGY2WhTYpPnrIDTdsKH5'],
  ['Charlie', 'elevenlabs', 'IKne3meq5aSn9XLyUdCD'],
  ['George', 'elevenlabs', 'JBFqnCBsd6RMkjVDRZzb'],
  ['Callum', 'elevenlabs', 'N2lVS1w4EtoT3dr4eOWO'],
  ['River', 'elevenlabs', 'SAz9YHcvj6GT2YYXdXww'],
  ['Harry', 'elevenlabs', 'SOYHLrjzK2X1ezoPC6cr'],
  ['Liam', 'elevenlabs', 'TX3LPaxmHKxFdv7VOQHJ'],
  ['Alice', 'elevenlabs', 'Xb7hH8MSUJpSbSDYk0k2'],
  ['Matilda', 'elevenlabs', 'XrExE9yKIg1WjnnlVkGX'],
  ['Will', 'elevenlabs', 'bIHbv24MWmeRgasZH58o'],
  ['Jessica', 'elevenlabs', 'cgSgspJ2msm6clMCkdW9'],
  ['Eric', 'elevenlabs', 'cjVigY5qzO86Huf0OWal'],
  ['Bella', 'elevenlabs', 'hpp4J3VqNfWAUOO0d1Us'],
  ['Chris', 'elevenlabs', 'iP95p4xoKVk53GoZ742B'],
  ['Brian', 'elevenlabs', 'nPczCjzI2devNBz1zQrb'],
  ['Daniel', 'elevenlabs', 'onwK4e9ZLuTAKqWW03F9'],
  ['Lily', 'elevenlabs', 'pFZP5JQG7iQjIQuC4Bku'],
  ['Adam', 'elevenlabs', 'pNInz6obpgDQGcFmaJgB'],
  ['Bill', 'elevenlabs', 'pqHfZKP75CvOlQylNhV4'],

  ['Pleasant Brazilian Lady', 'cartesia', '700d1ee3-a641-4018-ba6e-899dcadc9e2b'],
  ['Friendly Brazilian Man', 'cartesia', '6a16c1f4-462b-44de-998d-ccdaa4125a0a'],
  ['Customer Support Lady', 'cartesia', '829ccd10-f8b3-43cd-b8a0-4aeaa81f3b30'],
  ['Customer Support Man', 'cartesia', 'a167e0f3-df7e-4d52-a9c3-f949145efdab'],
  ['Spanish-speaking Lady', 'cartesia', '846d6cb0-2301-48b6-9683-48f5618ea2f6'],
  ['Spanish-speaking Man', 'cartesia', '34dbb662-8e98-413c-a1ef-1a3407675fe7'],
  ['German Woman', 'cartesia', 'b9de4a89-2257-424b-94c2-db18ba68c81a'],
  ['German Conversation Man', 'cartesia', '384b625b-da5d-49e8-a76d-a2855d4f31eb'],
  ['French Conversational Lady', 'cartesia', 'a249eaff-1e96-4d2c-b23b-12efa4f66f41'],
  ['Friendly French Man', 'cartesia', 'ab7c61f5-3daa-47dd-a23b-4ac0aac5f5c3'],
  ['Italian Narrator Woman', 'cartesia', '0e21713a-5e9a-428a-bed4-90d410b87f13'],
  ['Italian Calm Man', 'cartesia', '408daed0-c597-4c27-aae8-fa0497d644bf'],
  ['Dutch Man', 'cartesia', '4aa74047-d005-4463-ba2e-a0d9b261fb87'],
  ['Polish Narrator Woman', 'cartesia', '575a5d29-1fdc-4d4e-9afa-5a9a71759864'],
  ['Polish Confident Man', 'cartesia', '3d335974-4c4a-400a-84dc-ebf4b73aada6'],
  ['Russian Calm Lady', 'cartesia', '779673f3-895f-4935-b6b5-b031dc78b319'],
  ['Russian Narrator Man 1', 'cartesia', '2b3bb17d-26b9-421f-b8ca-1dd92332279f'],
  ['Turkish Calm Man', 'cartesia', '39f753ef-b0eb-41cd-aa53-2f3c284f948f'],
  ['Hindi Narrator Woman', 'cartesia', 'c1abd502-9231-4558-a054-10ac950c356d'],
  ['Hindi Calm Man', 'cartesia', 'ac7ee4fa-25db-420d-bfff-f590d740aeb2'],
  ['Japanese Woman Conversational', 'cartesia', '2b568345-1d48-4047-b25f-7baccf842eb0'],
  ['Japanese Male Conversational', 'cartesia', 'e8a863c6-22c7-4671-86ca-91cacffc038d'],
  ['Korean Calm Woman', 'cartesia', '29e5f8b4-b953-4160-848f-40fae182235b'],
  ['Korean Narrator Man', 'cartesia', '57dba6ff-fe3b-479d-836e-06f5a61cb5de'],
  ['Chinese Female Conversational', 'cartesia', 'e90c6678-f0d3-4767-9883-5d0ecf5894a8'],
  ['Chinese Call Center Man', 'cartesia', '3a63e2d1-1c1e-425d-8e79-5100bc910e90'],

  ...['alloy', 'ash', 'ballad', 'cedar', 'coral', 'echo', 'fable', 'marin', 'nova', 'onyx', 'sage', 'shimmer', 'verse'].map(
    (name): [string, 'openai', string] => [name, 'openai', name],
  ),
];

export class Migration20261124000000_voice_providers extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      alter table voices
        add column provider text null,
        add column provider_voice_id text null,
        add constraint voices_provider_check check (provider in ('elevenlabs', 'cartesia', 'openai')),
        add constraint voices_provider_voice_id_check check (char_length(provider_voice_id) between 1 and 100),
        add constraint voices_provider_pair_check check ((provider is null) = (provider_voice_id is null));`);
    for (const [name, provider, id] of VOICES) {
      this.addSql(`insert into voices (name, mode, provider, provider_voice_id) values ('${name}', 'pipeline', '${provider}', '${id}');`);
    }
  }

  override async down(): Promise<void> {
    this.addSql(`delete from voices where account_id is null and provider is not null;`);
    this.addSql(`alter table voices drop column if exists provider, drop column if exists provider_voice_id;`);
  }
}
