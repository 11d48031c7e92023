import { Migration } from '@mikro-orm/migrations';

const LANGUAGES: [string, string][] = [
  ['Portuguese', 'pt'],
  ['English', 'en'],
  ['Spanish', 'es'],
  ['German', 'de'],
  ['French', 'fr'],
  ['Italian', 'it'],
  ['Dutch', 'nl'],
  ['Polish', 'pl'],
  ['Russian', 'ru'],
  ['Turkish', 'tr'],
  ['Arabic', 'ar'],
  ['Hindi', 'hi'],
  ['Japanese', 'ja'],
  ['Korean', 'ko'],
  ['Chinese', 'zh'],
];

/** Public voices: text-to-speech voices for the pipeline engine, realtime-model voices for multimodal. */
const VOICES: [string, 'pipeline' | 'multimodal'][] = [
  ['Camila', 'pipeline'],
  ['Thiago', 'pipeline'],
  ['Francisca', 'pipeline'],
  ['Antonio', 'pipeline'],
  ['Rachel', 'pipeline'],
  ['Adam', 'pipeline'],
  ['Lucía', 'pipeline'],
  ['Mateo', 'pipeline'],
  ['alloy', 'multimodal'],
  ['ash', 'multimodal'],
  ['ballad', 'multimodal'],
  ['coral', 'multimodal'],
  ['echo', 'multimodal'],
  ['sage', 'multimodal'],
  ['shimmer', 'multimodal'],
  ['verse', 'multimodal'],
];

/** The language and voice catalogue, mid-call tools, assistants and their tool assignments. */
export class Migration20261121010000_assistants extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table languages (
        id serial primary key,
        name varchar(100) not null unique,
        iso_2 char(2) not null
      );`);
    this.addSql(`
      create table voices (
        id serial primary key,
        account_id int null references accounts (id) on delete cascade,
        name varchar(100) not null,
        mode varchar(16) not null check (mode in ('pipeline', 'multimodal')),
        created_at timestamptz(0) not null default now()
      );`);
    this.addSql(`create index voices_account_id_index on voices (account_id);`);
    for (const [name, iso] of LANGUAGES) this.addSql(`insert into languages (name, iso_2) values ('${name}', '${iso}');`);
    for (const [name, mode] of VOICES) this.addSql(`insert into voices (name, mode) values ('${name}', '${mode}');`);

    this.addSql(`
      create table tools (
        id serial primary key,
        account_id int not null references accounts (id) on delete cascade,
        name varchar(64) not null,
        description varchar(255) not null,
        endpoint varchar(2048) not null,
        method varchar(8) not null,
        timeout smallint not null default 10,
        headers_sealed text not null,
        schema jsonb not null default '[]',
        created_at timestamptz(3) not null default now(),
        updated_at timestamptz(3) not null default now()
      );`);
    this.addSql(`create index tools_account_id_index on tools (account_id, id);`);

    this.addSql(`
      create table assistants (
        id serial primary key,
        account_id int not null references accounts (id) on delete cascade,
        status varchar(16) not null default 'active',
        assistant_name varchar(255) not null,
        voice_id int not null references voices (id),
        language varchar(100) not null,
        llm_model varchar(100) not null,
        calls_direction varchar(16) not null,
        engine_type varchar(16) not null,
        timezone varchar(64) not null,
        initial_message text not null,
        system_prompt text not null,
        phone_number_id int null references phone_numbers (id) on delete set null,
        endpoint_type varchar(8) not null,
        endpoint_sensitivity double precision not null,
        interrupt_sensitivity double precision not null,
        ambient_sound_volume double precision not null,
        post_call_evaluation boolean not null,
        send_webhook_only_on_completed boolean not null,
        include_recording_in_webhook boolean not null,
        is_webhook_active boolean not null,
        webhook_url varchar(2048) null,
        use_min_interrupt_words boolean not null,
        min_interrupt_words smallint not null,
        variables jsonb not null default '{}',
        post_call_schema jsonb not null default '[]',
        end_call_tool_description varchar(500) null,
        llm_temperature double precision not null,
        voice_stability double precision not null,
        voice_similarity double precision not null,
        speech_speed double precision not null,
        allow_interruptions boolean not null,
        filler_audios boolean not null,
        re_engagement_interval smallint not null,
        max_call_duration smallint not null,
        max_silence_duration smallint not null,
        end_call_on_voicemail boolean not null,
        noise_cancellation boolean not null,
        record_call boolean not null,
        who_speaks_first varchar(16) not null,
        created_at timestamptz(0) not null default now(),
        updated_at timestamptz(0) not null default now()
      );`);
    this.addSql(`create index assistants_account_id_index on assistants (account_id, id);`);
    this.addSql(`create index assistants_phone_number_id_index on assistants (phone_number_id);`);
    this.addSql(`
      create table assistant_tools (
        assistant_id int not null references assistants (id) on delete cascade,
        tool_id int not null references tools (id) on delete cascade,
        primary key (assistant_id, tool_id)
      );`);
    this.addSql(`create index assistant_tools_tool_id_index on assistant_tools (tool_id);`);
  }

  override async down(): Promise<void> {
    for (const table of ['assistant_tools', 'assistants', 'tools', 'voices', 'languages']) {
      this.addSql(`drop table if exists ${table} cascade;`);
    }
  }
}
