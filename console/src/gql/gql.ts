/* eslint-disable */
import * as types from './graphql';



/**
 * Map of all GraphQL operations in the project.
 *
 * This map has several performance disadvantages:
 * 1. It is not tree-shakeable, so it will include all operations in the project.
 * 2. It is not minifiable, so the string of a GraphQL query will be multiple times inside the bundle.
 * 3. It does not support dead code elimination, so it will add unused operations.
 *
 * Therefore it is highly recommended to use the babel or swc plugin for production.
 * Learn more about it here: https://the-guild.dev/graphql/codegen/plugins/presets/preset-client#reducing-bundle-size
 */
type Documents = {
    "\n  query ConsoleMe {\n    me {\n      id\n      name\n      email\n      balance\n      currency\n    }\n  }\n": typeof types.ConsoleMeDocument,
    "\n  query ConsoleLedgerSlice($after: String, $per_page: Int) {\n    me {\n      ledgerFeed(after: $after, per_page: $per_page) {\n        data {\n          id\n          kind\n          amount\n          balance_after\n          reference\n          created_at\n        }\n        next_after\n      }\n    }\n  }\n": typeof types.ConsoleLedgerSliceDocument,
    "\n  subscription ConsoleAccountCalls {\n    callUpdated {\n      id\n      status\n    }\n  }\n": typeof types.ConsoleAccountCallsDocument,
    "\n  query ConsoleAnalytics($from: DateTime!, $to: DateTime!, $bucket: String, $campaign_id: Int, $assistant_id: Int) {\n    analytics(from: $from, to: $to, bucket: $bucket, campaign_id: $campaign_id, assistant_id: $assistant_id) {\n      from\n      to\n      bucket\n      buckets {\n        start\n        calls\n        minutes\n        answered\n        voicemail\n        no_answer\n        answer_rate\n        voicemail_rate\n        no_answer_rate\n        average_duration\n        cost\n        cost_per_answered_call\n        transfers\n      }\n      totals {\n        calls\n        minutes\n        answered\n        voicemail\n        no_answer\n        answer_rate\n        voicemail_rate\n        no_answer_rate\n        average_duration\n        cost\n        cost_per_answered_call\n        transfers\n      }\n      funnels {\n        campaign_id\n        campaign_name\n        leads\n        dialled\n        answered\n        completed\n        transferred\n      }\n      latency {\n        assistant_id\n        assistant_name\n        calls\n        turns\n        p50_ms\n        p95_ms\n      }\n    }\n  }\n": typeof types.ConsoleAnalyticsDocument,
    "\n  query ConsoleAnalyticsFilters {\n    campaigns {\n      id\n      name\n    }\n    assistants {\n      id\n      assistant_name\n    }\n  }\n": typeof types.ConsoleAnalyticsFiltersDocument,
    "\n  query ConsoleAssistants {\n    assistants {\n      id\n      assistant_name\n      type\n      engine_type\n      language\n      llm_model\n      phone_number\n      voice {\n        id\n        name\n        provider\n      }\n      updated_at\n    }\n  }\n": typeof types.ConsoleAssistantsDocument,
    "\n  fragment ConsoleAssistantFields on Assistant {\n    id\n    assistant_name\n    calls_direction\n    engine_type\n    voice_ready\n    voice_missing\n    status\n    phone_number_id\n    voice_id\n    language\n    llm_model\n    llm_temperature\n    timezone\n    who_speaks_first\n    initial_message\n    system_prompt\n    tool_ids\n    end_call_tool {\n      description\n    }\n    variables\n    post_call_schema {\n      name\n      type\n      description\n    }\n    post_call_evaluation\n    max_call_duration\n    max_silence_duration\n    re_engagement_interval\n    speech_speed\n    voice_stability\n    voice_similarity\n    allow_interruptions\n    interrupt_sensitivity\n    use_min_interrupt_words\n    min_interrupt_words\n    false_interruption_timeout_ms\n    keyterms\n    fallback_models\n    fallback_voice_id\n    transcriber\n    backchannel_words\n    pronunciations {\n      word\n      say_as\n    }\n    transfer_numbers {\n      number\n      description\n    }\n    transfer_mode\n    transfer_message\n    endpoint_type\n    endpoint_sensitivity\n    noise_cancellation\n    ambient_sound_volume\n    filler_audios\n    record_call\n    end_call_on_voicemail\n    voicemail_message\n    voicemail_beep_timeout_seconds\n    is_webhook_active\n    webhook_url\n    send_webhook_only_on_completed\n    include_recording_in_webhook\n  }\n": typeof types.ConsoleAssistantFieldsFragmentDoc,
    "\n  query ConsoleAssistant($id: Int!) {\n    assistant(id: $id) {\n      ...ConsoleAssistantFields\n    }\n  }\n": typeof types.ConsoleAssistantDocument,
    "\n  query ConsoleAssistantChoices {\n    transcriberProviders {\n      name\n      code\n    }\n    voices {\n      id\n      name\n      mode\n      provider\n    }\n    languages {\n      id\n      name\n    }\n    models {\n      id\n      name\n      provider\n      type\n    }\n    tools {\n      id\n      name\n      description\n    }\n    phoneNumbers {\n      id\n      phone_number\n      assistant_id\n    }\n  }\n": typeof types.ConsoleAssistantChoicesDocument,
    "\n  mutation ConsoleCreateAssistant($input: CreateAssistantInput!) {\n    createAssistant(input: $input) {\n      ...ConsoleAssistantFields\n    }\n  }\n": typeof types.ConsoleCreateAssistantDocument,
    "\n  mutation ConsoleUpdateAssistant($id: Int!, $input: UpdateAssistantInput!) {\n    updateAssistant(id: $id, input: $input) {\n      ...ConsoleAssistantFields\n    }\n  }\n": typeof types.ConsoleUpdateAssistantDocument,
    "\n  mutation ConsoleDeleteAssistant($id: Int!) {\n    deleteAssistant(id: $id)\n  }\n": typeof types.ConsoleDeleteAssistantDocument,
    "\n  mutation ConsoleStartWebCall($input: WebCallInput!) {\n    startWebCall(input: $input) {\n      call_id\n      url\n      expires_at\n    }\n  }\n": typeof types.ConsoleStartWebCallDocument,
    "\n  mutation ConsoleCallMe($input: MakeCallInput!) {\n    makeCall(input: $input) {\n      call_id\n      status\n    }\n  }\n": typeof types.ConsoleCallMeDocument,
    "\n  fragment ConsoleTestRunSummary on TestRun {\n    id\n    status\n    attempts\n    pass_rate\n    assistant_snapshot_hash\n    created_at\n    started_at\n    finished_at\n  }\n": typeof types.ConsoleTestRunSummaryFragmentDoc,
    "\n  fragment ConsoleTestResult on TestResult {\n    test_id\n    attempt\n    status\n    error\n    latency_ms\n    transcript {\n      role\n      content\n    }\n    criteria {\n      criterion\n      passed\n      reason\n    }\n    tool_calls {\n      name\n      arguments\n      mocked\n    }\n  }\n": typeof types.ConsoleTestResultFragmentDoc,
    "\n  query ConsoleAssistantTests($assistant_id: Int!) {\n    assistantTests(assistant_id: $assistant_id) {\n      id\n      name\n      type\n      config\n      updated_at\n    }\n    assistant(id: $assistant_id) {\n      id\n      tools {\n        id\n        name\n      }\n    }\n  }\n": typeof types.ConsoleAssistantTestsDocument,
    "\n  query ConsoleTestRuns($assistant_id: Int!, $page: Int) {\n    testRuns(assistant_id: $assistant_id, page: $page, per_page: 10) {\n      current_page\n      last_page\n      total\n      from\n      to\n      data {\n        ...ConsoleTestRunSummary\n        results {\n          test_id\n          status\n        }\n      }\n    }\n  }\n": typeof types.ConsoleTestRunsDocument,
    "\n  query ConsoleTestRun($id: Int!) {\n    testRun(id: $id) {\n      ...ConsoleTestRunSummary\n      results {\n        ...ConsoleTestResult\n      }\n    }\n  }\n": typeof types.ConsoleTestRunDocument,
    "\n  subscription ConsoleTestRunUpdated($id: Int!) {\n    testRunUpdated(id: $id) {\n      run {\n        ...ConsoleTestRunSummary\n        results {\n          ...ConsoleTestResult\n        }\n      }\n    }\n  }\n": typeof types.ConsoleTestRunUpdatedDocument,
    "\n  mutation ConsoleCreateAssistantTest($assistant_id: Int!, $input: CreateAssistantTestInput!) {\n    createAssistantTest(assistant_id: $assistant_id, input: $input) {\n      id\n    }\n  }\n": typeof types.ConsoleCreateAssistantTestDocument,
    "\n  mutation ConsoleUpdateAssistantTest($id: Int!, $input: UpdateAssistantTestInput!) {\n    updateAssistantTest(id: $id, input: $input) {\n      id\n    }\n  }\n": typeof types.ConsoleUpdateAssistantTestDocument,
    "\n  mutation ConsoleDeleteAssistantTest($id: Int!) {\n    deleteAssistantTest(id: $id)\n  }\n": typeof types.ConsoleDeleteAssistantTestDocument,
    "\n  mutation ConsoleStartTestRun($assistant_id: Int!, $input: StartTestRunInput) {\n    startTestRun(assistant_id: $assistant_id, input: $input) {\n      id\n      status\n    }\n  }\n": typeof types.ConsoleStartTestRunDocument,
    "\n  query ConsoleCalls(\n    $page: Int\n    $per_page: Int\n    $status: String\n    $type: String\n    $phone_number: String\n    $assistant_id: Int\n    $campaign_id: Int\n    $date_from: String\n    $date_to: String\n  ) {\n    calls(\n      page: $page\n      per_page: $per_page\n      status: $status\n      type: $type\n      phone_number: $phone_number\n      assistant_id: $assistant_id\n      campaign_id: $campaign_id\n      date_from: $date_from\n      date_to: $date_to\n    ) {\n      current_page\n      last_page\n      per_page\n      total\n      from\n      to\n      data {\n        id\n        type\n        status\n        answered_by\n        hangup_reason\n        client_phone_number\n        assistant_name\n        campaign_name\n        duration\n        total_cost\n        created_at\n        evaluation\n      }\n    }\n  }\n": typeof types.ConsoleCallsDocument,
    "\n  subscription ConsoleCallsLive($assistant_id: Int, $campaign_id: Int) {\n    callUpdated(assistant_id: $assistant_id, campaign_id: $campaign_id) {\n      id\n      status\n      answered_by\n      hangup_reason\n      duration\n      total_cost\n    }\n  }\n": typeof types.ConsoleCallsLiveDocument,
    "\n  query ConsoleCallFilterChoices {\n    assistants {\n      id\n      assistant_name\n    }\n    campaigns {\n      id\n      name\n    }\n  }\n": typeof types.ConsoleCallFilterChoicesDocument,
    "\n  query ConsoleCall($id: Int!) {\n    call(id: $id) {\n      id\n      type\n      status\n      answered_by\n      hangup_reason\n      hangup_detail\n      transferred_to\n      transfer_status\n      transfer_duration\n      assistant_id\n      assistant_name\n      assistant_phone_number\n      client_phone_number\n      campaign_id\n      campaign_name\n      lead_id\n      attempt\n      duration\n      carrier_cost\n      total_cost\n      recording_url\n      transcript\n      turns {\n        speaker\n        text\n        at_ms\n        duration_ms\n        latency {\n          stt_final_ms\n          llm_first_token_ms\n          tts_first_byte_ms\n          first_audio_ms\n        }\n        retrievals {\n          mode\n          query\n          chunks {\n            chunk_id\n            document_id\n            score\n          }\n        }\n      }\n      events {\n        status\n        at\n        detail\n      }\n      variables\n      evaluation\n      latency {\n        p50_ms\n        p95_ms\n        turns\n      }\n      usage {\n        llm_input_tokens\n        llm_output_tokens\n        stt_seconds\n        tts_characters\n      }\n      webhook_response\n      webhook_deliveries {\n        id\n        status\n        event_type\n        created_at\n        next_attempt_at\n        attempts {\n          attempt\n          status_code\n          error\n          latency_ms\n          created_at\n        }\n      }\n      created_at\n      updated_at\n    }\n  }\n": typeof types.ConsoleCallDocument,
    "\n  subscription ConsoleCallLive($id: Int!) {\n    callUpdated(id: $id, initial: true) {\n      id\n      status\n      updated_at\n    }\n  }\n": typeof types.ConsoleCallLiveDocument,
    "\n  mutation ConsoleHangupCall($id: Int!) {\n    hangupCall(id: $id) {\n      id\n      status\n    }\n  }\n": typeof types.ConsoleHangupCallDocument,
    "\n  mutation ConsoleRedeliver($delivery_id: String!) {\n    redeliverWebhook(delivery_id: $delivery_id)\n  }\n": typeof types.ConsoleRedeliverDocument,
    "\n  fragment ConsoleCampaignFields on Campaign {\n    id\n    name\n    status\n    paused_reason\n    assistant_id\n    phone_number_ids\n    allowed_days\n    allowed_hours_start_time\n    allowed_hours_end_time\n    timezone\n    window_open\n    next_window_at\n    max_calls_in_parallel\n    max_retries\n    retry_interval\n    retry_on_voicemail\n    retry_on_goal_incomplete\n    goal_completion_variable\n    mark_complete_when_no_leads\n    created_at\n    updated_at\n    stats {\n      leads\n      calls_in_progress\n      attempts\n      total_cost\n    }\n  }\n": typeof types.ConsoleCampaignFieldsFragmentDoc,
    "\n  query ConsoleCampaigns {\n    campaigns {\n      ...ConsoleCampaignFields\n    }\n  }\n": typeof types.ConsoleCampaignsDocument,
    "\n  query ConsoleCampaign($id: Int!) {\n    campaign(id: $id) {\n      ...ConsoleCampaignFields\n    }\n  }\n": typeof types.ConsoleCampaignDocument,
    "\n  subscription ConsoleCampaignLive($id: Int!) {\n    campaignUpdated(id: $id, initial: true) {\n      ...ConsoleCampaignFields\n    }\n  }\n": typeof types.ConsoleCampaignLiveDocument,
    "\n  query ConsoleCampaignFormChoices {\n    assistants(calls_direction: \"make\") {\n      id\n      assistant_name\n      post_call_schema {\n        name\n      }\n    }\n    phoneNumbers {\n      id\n      phone_number\n    }\n  }\n": typeof types.ConsoleCampaignFormChoicesDocument,
    "\n  mutation ConsoleCreateCampaign($input: CreateCampaignInput!) {\n    createCampaign(input: $input) {\n      ...ConsoleCampaignFields\n    }\n  }\n": typeof types.ConsoleCreateCampaignDocument,
    "\n  mutation ConsoleUpdateCampaign($id: Int!, $input: UpdateCampaignInput!) {\n    updateCampaign(id: $id, input: $input) {\n      ...ConsoleCampaignFields\n    }\n  }\n": typeof types.ConsoleUpdateCampaignDocument,
    "\n  mutation ConsoleStartCampaign($id: Int!) {\n    startCampaign(id: $id) {\n      ...ConsoleCampaignFields\n    }\n  }\n": typeof types.ConsoleStartCampaignDocument,
    "\n  mutation ConsoleStopCampaign($id: Int!) {\n    stopCampaign(id: $id) {\n      ...ConsoleCampaignFields\n    }\n  }\n": typeof types.ConsoleStopCampaignDocument,
    "\n  mutation ConsoleDeleteCampaign($id: Int!) {\n    deleteCampaign(id: $id)\n  }\n": typeof types.ConsoleDeleteCampaignDocument,
    "\n  fragment ConsoleLeadImportFields on LeadImport {\n    id\n    campaign_id\n    status\n    rows_total\n    rows_read\n    created\n    duplicates\n    blacklisted\n    invalid\n    failure\n    errors {\n      line\n      field\n      message\n    }\n  }\n": typeof types.ConsoleLeadImportFieldsFragmentDoc,
    "\n  mutation ConsoleImportLeads($input: ImportLeadsInput!) {\n    importLeads(input: $input) {\n      ...ConsoleLeadImportFields\n    }\n  }\n": typeof types.ConsoleImportLeadsDocument,
    "\n  subscription ConsoleLeadImportLive($id: Int!) {\n    leadImportUpdated(id: $id) {\n      ...ConsoleLeadImportFields\n    }\n  }\n": typeof types.ConsoleLeadImportLiveDocument,
    "\n  query ConsoleLeads($campaign_id: Int!, $page: Int, $per_page: Int, $status: String, $phone_number: String) {\n    leads(campaign_id: $campaign_id, page: $page, per_page: $per_page, status: $status, phone_number: $phone_number) {\n      current_page\n      last_page\n      per_page\n      total\n      from\n      to\n      data {\n        id\n        phone_number\n        status\n        attempts\n        next_attempt_at\n        variables\n        updated_at\n      }\n    }\n  }\n": typeof types.ConsoleLeadsDocument,
    "\n  subscription ConsoleLeadLive($campaign_id: Int) {\n    leadUpdated(campaign_id: $campaign_id) {\n      id\n      status\n      attempts\n      next_attempt_at\n      updated_at\n    }\n  }\n": typeof types.ConsoleLeadLiveDocument,
    "\n  query ConsoleLeadDetail($id: Int!, $campaign_id: Int!, $phone_number: String!) {\n    lead(id: $id) {\n      id\n      phone_number\n      status\n      attempts\n      variables\n      secondary_contacts {\n        id\n        phone_number\n        status\n      }\n    }\n    calls(campaign_id: $campaign_id, phone_number: $phone_number, per_page: 50) {\n      data {\n        id\n        attempt\n        status\n        duration\n        total_cost\n        created_at\n        client_phone_number\n        lead_id\n      }\n    }\n  }\n": typeof types.ConsoleLeadDetailDocument,
    "\n  mutation ConsoleCreateLead($input: CreateLeadInput!) {\n    createLead(input: $input) {\n      id\n    }\n  }\n": typeof types.ConsoleCreateLeadDocument,
    "\n  query ConsoleTools {\n    tools {\n      id\n      name\n      description\n      endpoint\n      method\n      timeout\n      speak_during\n      headers {\n        name\n        value\n      }\n      schema {\n        name\n        type\n        description\n      }\n      updated_at\n    }\n  }\n": typeof types.ConsoleToolsDocument,
    "\n  mutation ConsoleCreateTool($input: CreateToolInput!) {\n    createTool(input: $input) {\n      id\n    }\n  }\n": typeof types.ConsoleCreateToolDocument,
    "\n  mutation ConsoleUpdateTool($id: Int!, $input: UpdateToolInput!) {\n    updateTool(id: $id, input: $input) {\n      id\n    }\n  }\n": typeof types.ConsoleUpdateToolDocument,
    "\n  mutation ConsoleDeleteTool($id: Int!) {\n    deleteTool(id: $id)\n  }\n": typeof types.ConsoleDeleteToolDocument,
    "\n  query ConsolePhoneNumbers {\n    phoneNumbers {\n      id\n      phone_number\n      nickname\n      sms_capable\n      expires_at\n      assistant_id\n      monthly_price\n      renews\n    }\n    assistants {\n      id\n      assistant_name\n    }\n    me {\n      id\n      balance\n      currency\n    }\n  }\n": typeof types.ConsolePhoneNumbersDocument,
    "\n  query ConsoleAvailablePhoneNumbers($country_code: String, $contains: String) {\n    availablePhoneNumbers(country_code: $country_code, contains: $contains) {\n      phone_number\n      friendly_name\n      locality\n      region\n      iso_country\n      capabilities {\n        voice\n        sms\n        mms\n      }\n      monthly_price\n    }\n  }\n": typeof types.ConsoleAvailablePhoneNumbersDocument,
    "\n  mutation ConsolePurchasePhoneNumber($input: PurchasePhoneNumberInput!) {\n    purchasePhoneNumber(input: $input) {\n      id\n      phone_number\n    }\n  }\n": typeof types.ConsolePurchasePhoneNumberDocument,
    "\n  mutation ConsoleUpdatePhoneNumber($id: Int!, $input: UpdatePhoneNumberInput!) {\n    updatePhoneNumber(id: $id, input: $input) {\n      id\n      nickname\n    }\n  }\n": typeof types.ConsoleUpdatePhoneNumberDocument,
    "\n  mutation ConsoleReleasePhoneNumber($id: Int!) {\n    releasePhoneNumber(id: $id)\n  }\n": typeof types.ConsoleReleasePhoneNumberDocument,
    "\n  query ConsoleDnc {\n    dncNumbers {\n      phone_number\n      created_at\n    }\n  }\n": typeof types.ConsoleDncDocument,
    "\n  mutation ConsoleAddDnc($phone_number: String!) {\n    addDncNumber(phone_number: $phone_number) {\n      phone_number\n    }\n  }\n": typeof types.ConsoleAddDncDocument,
    "\n  mutation ConsoleRemoveDnc($phone_number: String!) {\n    removeDncNumber(phone_number: $phone_number)\n  }\n": typeof types.ConsoleRemoveDncDocument,
    "\n  query ConsoleWebhookEndpoints {\n    webhookEndpoints {\n      id\n      url\n      events\n      disabled_at\n      created_at\n    }\n  }\n": typeof types.ConsoleWebhookEndpointsDocument,
    "\n  query ConsoleWebhookEndpoint($id: Int!) {\n    webhookEndpoint(id: $id) {\n      id\n      url\n      events\n      disabled_at\n      created_at\n      deliveries(last: 50) {\n        id\n        event_type\n        status\n        created_at\n        next_attempt_at\n        payload\n        attempts {\n          attempt\n          status_code\n          error\n          latency_ms\n          created_at\n          response_body\n        }\n      }\n    }\n  }\n": typeof types.ConsoleWebhookEndpointDocument,
    "\n  mutation ConsoleCreateWebhookEndpoint($url: String!, $events: [String!]!) {\n    createWebhookEndpoint(url: $url, events: $events) {\n      id\n      secret\n      warning\n    }\n  }\n": typeof types.ConsoleCreateWebhookEndpointDocument,
    "\n  mutation ConsoleDeleteWebhookEndpoint($id: Int!) {\n    deleteWebhookEndpoint(id: $id)\n  }\n": typeof types.ConsoleDeleteWebhookEndpointDocument,
    "\n  query ConsoleApiTokens {\n    apiTokens {\n      id\n      prefix\n      name\n      created_at\n      last_used_at\n    }\n  }\n": typeof types.ConsoleApiTokensDocument,
    "\n  mutation ConsoleCreateApiToken($name: String) {\n    createApiToken(name: $name) {\n      token\n      api_token {\n        id\n        prefix\n      }\n    }\n  }\n": typeof types.ConsoleCreateApiTokenDocument,
    "\n  mutation ConsoleRevokeApiToken($id: Int!) {\n    revokeApiToken(id: $id)\n  }\n": typeof types.ConsoleRevokeApiTokenDocument,
    "\n  query ConsoleVoiceVendors {\n    voiceVendors {\n      code\n      name\n      parts\n      configured\n      hosted\n      variables\n    }\n  }\n": typeof types.ConsoleVoiceVendorsDocument,
};
const documents: Documents = {
    "\n  query ConsoleMe {\n    me {\n      id\n      name\n      email\n      balance\n      currency\n    }\n  }\n": types.ConsoleMeDocument,
    "\n  query ConsoleLedgerSlice($after: String, $per_page: Int) {\n    me {\n      ledgerFeed(after: $after, per_page: $per_page) {\n        data {\n          id\n          kind\n          amount\n          balance_after\n          reference\n          created_at\n        }\n        next_after\n      }\n    }\n  }\n": types.ConsoleLedgerSliceDocument,
    "\n  subscription ConsoleAccountCalls {\n    callUpdated {\n      id\n      status\n    }\n  }\n": types.ConsoleAccountCallsDocument,
    "\n  query ConsoleAnalytics($from: DateTime!, $to: DateTime!, $bucket: String, $campaign_id: Int, $assistant_id: Int) {\n    analytics(from: $from, to: $to, bucket: $bucket, campaign_id: $campaign_id, assistant_id: $assistant_id) {\n      from\n      to\n      bucket\n      buckets {\n        start\n        calls\n        minutes\n        answered\n        voicemail\n        no_answer\n        answer_rate\n        voicemail_rate\n        no_answer_rate\n        average_duration\n        cost\n        cost_per_answered_call\n        transfers\n      }\n      totals {\n        calls\n        minutes\n        answered\n        voicemail\n        no_answer\n        answer_rate\n        voicemail_rate\n        no_answer_rate\n        average_duration\n        cost\n        cost_per_answered_call\n        transfers\n      }\n      funnels {\n        campaign_id\n        campaign_name\n        leads\n        dialled\n        answered\n        completed\n        transferred\n      }\n      latency {\n        assistant_id\n        assistant_name\n        calls\n        turns\n        p50_ms\n        p95_ms\n      }\n    }\n  }\n": types.ConsoleAnalyticsDocument,
    "\n  query ConsoleAnalyticsFilters {\n    campaigns {\n      id\n      name\n    }\n    assistants {\n      id\n      assistant_name\n    }\n  }\n": types.ConsoleAnalyticsFiltersDocument,
    "\n  query ConsoleAssistants {\n    assistants {\n      id\n      assistant_name\n      type\n      engine_type\n      language\n      llm_model\n      phone_number\n      voice {\n        id\n        name\n        provider\n      }\n      updated_at\n    }\n  }\n": types.ConsoleAssistantsDocument,
    "\n  fragment ConsoleAssistantFields on Assistant {\n    id\n    assistant_name\n    calls_direction\n    engine_type\n    voice_ready\n    voice_missing\n    status\n    phone_number_id\n    voice_id\n    language\n    llm_model\n    llm_temperature\n    timezone\n    who_speaks_first\n    initial_message\n    system_prompt\n    tool_ids\n    end_call_tool {\n      description\n    }\n    variables\n    post_call_schema {\n      name\n      type\n      description\n    }\n    post_call_evaluation\n    max_call_duration\n    max_silence_duration\n    re_engagement_interval\n    speech_speed\n    voice_stability\n    voice_similarity\n    allow_interruptions\n    interrupt_sensitivity\n    use_min_interrupt_words\n    min_interrupt_words\n    false_interruption_timeout_ms\n    keyterms\n    fallback_models\n    fallback_voice_id\n    transcriber\n    backchannel_words\n    pronunciations {\n      word\n      say_as\n    }\n    transfer_numbers {\n      number\n      description\n    }\n    transfer_mode\n    transfer_message\n    endpoint_type\n    endpoint_sensitivity\n    noise_cancellation\n    ambient_sound_volume\n    filler_audios\n    record_call\n    end_call_on_voicemail\n    voicemail_message\n    voicemail_beep_timeout_seconds\n    is_webhook_active\n    webhook_url\n    send_webhook_only_on_completed\n    include_recording_in_webhook\n  }\n": types.ConsoleAssistantFieldsFragmentDoc,
    "\n  query ConsoleAssistant($id: Int!) {\n    assistant(id: $id) {\n      ...ConsoleAssistantFields\n    }\n  }\n": types.ConsoleAssistantDocument,
    "\n  query ConsoleAssistantChoices {\n    transcriberProviders {\n      name\n      code\n    }\n    voices {\n      id\n      name\n      mode\n      provider\n    }\n    languages {\n      id\n      name\n    }\n    models {\n      id\n      name\n      provider\n      type\n    }\n    tools {\n      id\n      name\n      description\n    }\n    phoneNumbers {\n      id\n      phone_number\n      assistant_id\n    }\n  }\n": types.ConsoleAssistantChoicesDocument,
    "\n  mutation ConsoleCreateAssistant($input: CreateAssistantInput!) {\n    createAssistant(input: $input) {\n      ...ConsoleAssistantFields\n    }\n  }\n": types.ConsoleCreateAssistantDocument,
    "\n  mutation ConsoleUpdateAssistant($id: Int!, $input: UpdateAssistantInput!) {\n    updateAssistant(id: $id, input: $input) {\n      ...ConsoleAssistantFields\n    }\n  }\n": types.ConsoleUpdateAssistantDocument,
    "\n  mutation ConsoleDeleteAssistant($id: Int!) {\n    deleteAssistant(id: $id)\n  }\n": types.ConsoleDeleteAssistantDocument,
    "\n  mutation ConsoleStartWebCall($input: WebCallInput!) {\n    startWebCall(input: $input) {\n      call_id\n      url\n      expires_at\n    }\n  }\n": types.ConsoleStartWebCallDocument,
    "\n  mutation ConsoleCallMe($input: MakeCallInput!) {\n    makeCall(input: $input) {\n      call_id\n      status\n    }\n  }\n": types.ConsoleCallMeDocument,
    "\n  fragment ConsoleTestRunSummary on TestRun {\n    id\n    status\n    attempts\n    pass_rate\n    assistant_snapshot_hash\n    created_at\n    started_at\n    finished_at\n  }\n": types.ConsoleTestRunSummaryFragmentDoc,
    "\n  fragment ConsoleTestResult on TestResult {\n    test_id\n    attempt\n    status\n    error\n    latency_ms\n    transcript {\n      role\n      content\n    }\n    criteria {\n      criterion\n      passed\n      reason\n    }\n    tool_calls {\n      name\n      arguments\n      mocked\n    }\n  }\n": types.ConsoleTestResultFragmentDoc,
    "\n  query ConsoleAssistantTests($assistant_id: Int!) {\n    assistantTests(assistant_id: $assistant_id) {\n      id\n      name\n      type\n      config\n      updated_at\n    }\n    assistant(id: $assistant_id) {\n      id\n      tools {\n        id\n        name\n      }\n    }\n  }\n": types.ConsoleAssistantTestsDocument,
    "\n  query ConsoleTestRuns($assistant_id: Int!, $page: Int) {\n    testRuns(assistant_id: $assistant_id, page: $page, per_page: 10) {\n      current_page\n      last_page\n      total\n      from\n      to\n      data {\n        ...ConsoleTestRunSummary\n        results {\n          test_id\n          status\n        }\n      }\n    }\n  }\n": types.ConsoleTestRunsDocument,
    "\n  query ConsoleTestRun($id: Int!) {\n    testRun(id: $id) {\n      ...ConsoleTestRunSummary\n      results {\n        ...ConsoleTestResult\n      }\n    }\n  }\n": types.ConsoleTestRunDocument,
    "\n  subscription ConsoleTestRunUpdated($id: Int!) {\n    testRunUpdated(id: $id) {\n      run {\n        ...ConsoleTestRunSummary\n        results {\n          ...ConsoleTestResult\n        }\n      }\n    }\n  }\n": types.ConsoleTestRunUpdatedDocument,
    "\n  mutation ConsoleCreateAssistantTest($assistant_id: Int!, $input: CreateAssistantTestInput!) {\n    createAssistantTest(assistant_id: $assistant_id, input: $input) {\n      id\n    }\n  }\n": types.ConsoleCreateAssistantTestDocument,
    "\n  mutation ConsoleUpdateAssistantTest($id: Int!, $input: UpdateAssistantTestInput!) {\n    updateAssistantTest(id: $id, input: $input) {\n      id\n    }\n  }\n": types.ConsoleUpdateAssistantTestDocument,
    "\n  mutation ConsoleDeleteAssistantTest($id: Int!) {\n    deleteAssistantTest(id: $id)\n  }\n": types.ConsoleDeleteAssistantTestDocument,
    "\n  mutation ConsoleStartTestRun($assistant_id: Int!, $input: StartTestRunInput) {\n    startTestRun(assistant_id: $assistant_id, input: $input) {\n      id\n      status\n    }\n  }\n": types.ConsoleStartTestRunDocument,
    "\n  query ConsoleCalls(\n    $page: Int\n    $per_page: Int\n    $status: String\n    $type: String\n    $phone_number: String\n    $assistant_id: Int\n    $campaign_id: Int\n    $date_from: String\n    $date_to: String\n  ) {\n    calls(\n      page: $page\n      per_page: $per_page\n      status: $status\n      type: $type\n      phone_number: $phone_number\n      assistant_id: $assistant_id\n      campaign_id: $campaign_id\n      date_from: $date_from\n      date_to: $date_to\n    ) {\n      current_page\n      last_page\n      per_page\n      total\n      from\n      to\n      data {\n        id\n        type\n        status\n        answered_by\n        hangup_reason\n        client_phone_number\n        assistant_name\n        campaign_name\n        duration\n        total_cost\n        created_at\n        evaluation\n      }\n    }\n  }\n": types.ConsoleCallsDocument,
    "\n  subscription ConsoleCallsLive($assistant_id: Int, $campaign_id: Int) {\n    callUpdated(assistant_id: $assistant_id, campaign_id: $campaign_id) {\n      id\n      status\n      answered_by\n      hangup_reason\n      duration\n      total_cost\n    }\n  }\n": types.ConsoleCallsLiveDocument,
    "\n  query ConsoleCallFilterChoices {\n    assistants {\n      id\n      assistant_name\n    }\n    campaigns {\n      id\n      name\n    }\n  }\n": types.ConsoleCallFilterChoicesDocument,
    "\n  query ConsoleCall($id: Int!) {\n    call(id: $id) {\n      id\n      type\n      status\n      answered_by\n      hangup_reason\n      hangup_detail\n      transferred_to\n      transfer_status\n      transfer_duration\n      assistant_id\n      assistant_name\n      assistant_phone_number\n      client_phone_number\n      campaign_id\n      campaign_name\n      lead_id\n      attempt\n      duration\n      carrier_cost\n      total_cost\n      recording_url\n      transcript\n      turns {\n        speaker\n        text\n        at_ms\n        duration_ms\n        latency {\n          stt_final_ms\n          llm_first_token_ms\n          tts_first_byte_ms\n          first_audio_ms\n        }\n        retrievals {\n          mode\n          query\n          chunks {\n            chunk_id\n            document_id\n            score\n          }\n        }\n      }\n      events {\n        status\n        at\n        detail\n      }\n      variables\n      evaluation\n      latency {\n        p50_ms\n        p95_ms\n        turns\n      }\n      usage {\n        llm_input_tokens\n        llm_output_tokens\n        stt_seconds\n        tts_characters\n      }\n      webhook_response\n      webhook_deliveries {\n        id\n        status\n        event_type\n        created_at\n        next_attempt_at\n        attempts {\n          attempt\n          status_code\n          error\n          latency_ms\n          created_at\n        }\n      }\n      created_at\n      updated_at\n    }\n  }\n": types.ConsoleCallDocument,
    "\n  subscription ConsoleCallLive($id: Int!) {\n    callUpdated(id: $id, initial: true) {\n      id\n      status\n      updated_at\n    }\n  }\n": types.ConsoleCallLiveDocument,
    "\n  mutation ConsoleHangupCall($id: Int!) {\n    hangupCall(id: $id) {\n      id\n      status\n    }\n  }\n": types.ConsoleHangupCallDocument,
    "\n  mutation ConsoleRedeliver($delivery_id: String!) {\n    redeliverWebhook(delivery_id: $delivery_id)\n  }\n": types.ConsoleRedeliverDocument,
    "\n  fragment ConsoleCampaignFields on Campaign {\n    id\n    name\n    status\n    paused_reason\n    assistant_id\n    phone_number_ids\n    allowed_days\n    allowed_hours_start_time\n    allowed_hours_end_time\n    timezone\n    window_open\n    next_window_at\n    max_calls_in_parallel\n    max_retries\n    retry_interval\n    retry_on_voicemail\n    retry_on_goal_incomplete\n    goal_completion_variable\n    mark_complete_when_no_leads\n    created_at\n    updated_at\n    stats {\n      leads\n      calls_in_progress\n      attempts\n      total_cost\n    }\n  }\n": types.ConsoleCampaignFieldsFragmentDoc,
    "\n  query ConsoleCampaigns {\n    campaigns {\n      ...ConsoleCampaignFields\n    }\n  }\n": types.ConsoleCampaignsDocument,
    "\n  query ConsoleCampaign($id: Int!) {\n    campaign(id: $id) {\n      ...ConsoleCampaignFields\n    }\n  }\n": types.ConsoleCampaignDocument,
    "\n  subscription ConsoleCampaignLive($id: Int!) {\n    campaignUpdated(id: $id, initial: true) {\n      ...ConsoleCampaignFields\n    }\n  }\n": types.ConsoleCampaignLiveDocument,
    "\n  query ConsoleCampaignFormChoices {\n    assistants(calls_direction: \"make\") {\n      id\n      assistant_name\n      post_call_schema {\n        name\n      }\n    }\n    phoneNumbers {\n      id\n      phone_number\n    }\n  }\n": types.ConsoleCampaignFormChoicesDocument,
    "\n  mutation ConsoleCreateCampaign($input: CreateCampaignInput!) {\n    createCampaign(input: $input) {\n      ...ConsoleCampaignFields\n    }\n  }\n": types.ConsoleCreateCampaignDocument,
    "\n  mutation ConsoleUpdateCampaign($id: Int!, $input: UpdateCampaignInput!) {\n    updateCampaign(id: $id, input: $input) {\n      ...ConsoleCampaignFields\n    }\n  }\n": types.ConsoleUpdateCampaignDocument,
    "\n  mutation ConsoleStartCampaign($id: Int!) {\n    startCampaign(id: $id) {\n      ...ConsoleCampaignFields\n    }\n  }\n": types.ConsoleStartCampaignDocument,
    "\n  mutation ConsoleStopCampaign($id: Int!) {\n    stopCampaign(id: $id) {\n      ...ConsoleCampaignFields\n    }\n  }\n": types.ConsoleStopCampaignDocument,
    "\n  mutation ConsoleDeleteCampaign($id: Int!) {\n    deleteCampaign(id: $id)\n  }\n": types.ConsoleDeleteCampaignDocument,
    "\n  fragment ConsoleLeadImportFields on LeadImport {\n    id\n    campaign_id\n    status\n    rows_total\n    rows_read\n    created\n    duplicates\n    blacklisted\n    invalid\n    failure\n    errors {\n      line\n      field\n      message\n    }\n  }\n": types.ConsoleLeadImportFieldsFragmentDoc,
    "\n  mutation ConsoleImportLeads($input: ImportLeadsInput!) {\n    importLeads(input: $input) {\n      ...ConsoleLeadImportFields\n    }\n  }\n": types.ConsoleImportLeadsDocument,
    "\n  subscription ConsoleLeadImportLive($id: Int!) {\n    leadImportUpdated(id: $id) {\n      ...ConsoleLeadImportFields\n    }\n  }\n": types.ConsoleLeadImportLiveDocument,
    "\n  query ConsoleLeads($campaign_id: Int!, $page: Int, $per_page: Int, $status: String, $phone_number: String) {\n    leads(campaign_id: $campaign_id, page: $page, per_page: $per_page, status: $status, phone_number: $phone_number) {\n      current_page\n      last_page\n      per_page\n      total\n      from\n      to\n      data {\n        id\n        phone_number\n        status\n        attempts\n        next_attempt_at\n        variables\n        updated_at\n      }\n    }\n  }\n": types.ConsoleLeadsDocument,
    "\n  subscription ConsoleLeadLive($campaign_id: Int) {\n    leadUpdated(campaign_id: $campaign_id) {\n      id\n      status\n      attempts\n      next_attempt_at\n      updated_at\n    }\n  }\n": types.ConsoleLeadLiveDocument,
    "\n  query ConsoleLeadDetail($id: Int!, $campaign_id: Int!, $phone_number: String!) {\n    lead(id: $id) {\n      id\n      phone_number\n      status\n      attempts\n      variables\n      secondary_contacts {\n        id\n        phone_number\n        status\n      }\n    }\n    calls(campaign_id: $campaign_id, phone_number: $phone_number, per_page: 50) {\n      data {\n        id\n        attempt\n        status\n        duration\n        total_cost\n        created_at\n        client_phone_number\n        lead_id\n      }\n    }\n  }\n": types.ConsoleLeadDetailDocument,
    "\n  mutation ConsoleCreateLead($input: CreateLeadInput!) {\n    createLead(input: $input) {\n      id\n    }\n  }\n": types.ConsoleCreateLeadDocument,
    "\n  query ConsoleTools {\n    tools {\n      id\n      name\n      description\n      endpoint\n      method\n      timeout\n      speak_during\n      headers {\n        name\n        value\n      }\n      schema {\n        name\n        type\n        description\n      }\n      updated_at\n    }\n  }\n": types.ConsoleToolsDocument,
    "\n  mutation ConsoleCreateTool($input: CreateToolInput!) {\n    createTool(input: $input) {\n      id\n    }\n  }\n": types.ConsoleCreateToolDocument,
    "\n  mutation ConsoleUpdateTool($id: Int!, $input: UpdateToolInput!) {\n    updateTool(id: $id, input: $input) {\n      id\n    }\n  }\n": types.ConsoleUpdateToolDocument,
    "\n  mutation ConsoleDeleteTool($id: Int!) {\n    deleteTool(id: $id)\n  }\n": types.ConsoleDeleteToolDocument,
    "\n  query ConsolePhoneNumbers {\n    phoneNumbers {\n      id\n      phone_number\n      nickname\n      sms_capable\n      expires_at\n      assistant_id\n      monthly_price\n      renews\n    }\n    assistants {\n      id\n      assistant_name\n    }\n    me {\n      id\n      balance\n      currency\n    }\n  }\n": types.ConsolePhoneNumbersDocument,
    "\n  query ConsoleAvailablePhoneNumbers($country_code: String, $contains: String) {\n    availablePhoneNumbers(country_code: $country_code, contains: $contains) {\n      phone_number\n      friendly_name\n      locality\n      region\n      iso_country\n      capabilities {\n        voice\n        sms\n        mms\n      }\n      monthly_price\n    }\n  }\n": types.ConsoleAvailablePhoneNumbersDocument,
    "\n  mutation ConsolePurchasePhoneNumber($input: PurchasePhoneNumberInput!) {\n    purchasePhoneNumber(input: $input) {\n      id\n      phone_number\n    }\n  }\n": types.ConsolePurchasePhoneNumberDocument,
    "\n  mutation ConsoleUpdatePhoneNumber($id: Int!, $input: UpdatePhoneNumberInput!) {\n    updatePhoneNumber(id: $id, input: $input) {\n      id\n      nickname\n    }\n  }\n": types.ConsoleUpdatePhoneNumberDocument,
    "\n  mutation ConsoleReleasePhoneNumber($id: Int!) {\n    releasePhoneNumber(id: $id)\n  }\n": types.ConsoleReleasePhoneNumberDocument,
    "\n  query ConsoleDnc {\n    dncNumbers {\n      phone_number\n      created_at\n    }\n  }\n": types.ConsoleDncDocument,
    "\n  mutation ConsoleAddDnc($phone_number: String!) {\n    addDncNumber(phone_number: $phone_number) {\n      phone_number\n    }\n  }\n": types.ConsoleAddDncDocument,
    "\n  mutation ConsoleRemoveDnc($phone_number: String!) {\n    removeDncNumber(phone_number: $phone_number)\n  }\n": types.ConsoleRemoveDncDocument,
    "\n  query ConsoleWebhookEndpoints {\n    webhookEndpoints {\n      id\n      url\n      events\n      disabled_at\n      created_at\n    }\n  }\n": types.ConsoleWebhookEndpointsDocument,
    "\n  query ConsoleWebhookEndpoint($id: Int!) {\n    webhookEndpoint(id: $id) {\n      id\n      url\n      events\n      disabled_at\n      created_at\n      deliveries(last: 50) {\n        id\n        event_type\n        status\n        created_at\n        next_attempt_at\n        payload\n        attempts {\n          attempt\n          status_code\n          error\n          latency_ms\n          created_at\n          response_body\n        }\n      }\n    }\n  }\n": types.ConsoleWebhookEndpointDocument,
    "\n  mutation ConsoleCreateWebhookEndpoint($url: String!, $events: [String!]!) {\n    createWebhookEndpoint(url: $url, events: $events) {\n      id\n      secret\n      warning\n    }\n  }\n": types.ConsoleCreateWebhookEndpointDocument,
    "\n  mutation ConsoleDeleteWebhookEndpoint($id: Int!) {\n    deleteWebhookEndpoint(id: $id)\n  }\n": types.ConsoleDeleteWebhookEndpointDocument,
    "\n  query ConsoleApiTokens {\n    apiTokens {\n      id\n      prefix\n      name\n      created_at\n      last_used_at\n    }\n  }\n": types.ConsoleApiTokensDocument,
    "\n  mutation ConsoleCreateApiToken($name: String) {\n    createApiToken(name: $name) {\n      token\n      api_token {\n        id\n        prefix\n      }\n    }\n  }\n": types.ConsoleCreateApiTokenDocument,
    "\n  mutation ConsoleRevokeApiToken($id: Int!) {\n    revokeApiToken(id: $id)\n  }\n": types.ConsoleRevokeApiTokenDocument,
    "\n  query ConsoleVoiceVendors {\n    voiceVendors {\n      code\n      name\n      parts\n      configured\n      hosted\n      variables\n    }\n  }\n": types.ConsoleVoiceVendorsDocument,
};

/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query ConsoleMe {\n    me {\n      id\n      name\n      email\n      balance\n      currency\n    }\n  }\n"): typeof import('./graphql').ConsoleMeDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query ConsoleLedgerSlice($after: String, $per_page: Int) {\n    me {\n      ledgerFeed(after: $after, per_page: $per_page) {\n        data {\n          id\n          kind\n          amount\n          balance_after\n          reference\n          created_at\n        }\n        next_after\n      }\n    }\n  }\n"): typeof import('./graphql').ConsoleLedgerSliceDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  subscription ConsoleAccountCalls {\n    callUpdated {\n      id\n      status\n    }\n  }\n"): typeof import('./graphql').ConsoleAccountCallsDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query ConsoleAnalytics($from: DateTime!, $to: DateTime!, $bucket: String, $campaign_id: Int, $assistant_id: Int) {\n    analytics(from: $from, to: $to, bucket: $bucket, campaign_id: $campaign_id, assistant_id: $assistant_id) {\n      from\n      to\n      bucket\n      buckets {\n        start\n        calls\n        minutes\n        answered\n        voicemail\n        no_answer\n        answer_rate\n        voicemail_rate\n        no_answer_rate\n        average_duration\n        cost\n        cost_per_answered_call\n        transfers\n      }\n      totals {\n        calls\n        minutes\n        answered\n        voicemail\n        no_answer\n        answer_rate\n        voicemail_rate\n        no_answer_rate\n        average_duration\n        cost\n        cost_per_answered_call\n        transfers\n      }\n      funnels {\n        campaign_id\n        campaign_name\n        leads\n        dialled\n        answered\n        completed\n        transferred\n      }\n      latency {\n        assistant_id\n        assistant_name\n        calls\n        turns\n        p50_ms\n        p95_ms\n      }\n    }\n  }\n"): typeof import('./graphql').ConsoleAnalyticsDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query ConsoleAnalyticsFilters {\n    campaigns {\n      id\n      name\n    }\n    assistants {\n      id\n      assistant_name\n    }\n  }\n"): typeof import('./graphql').ConsoleAnalyticsFiltersDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query ConsoleAssistants {\n    assistants {\n      id\n      assistant_name\n      type\n      engine_type\n      language\n      llm_model\n      phone_number\n      voice {\n        id\n        name\n        provider\n      }\n      updated_at\n    }\n  }\n"): typeof import('./graphql').ConsoleAssistantsDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  fragment ConsoleAssistantFields on Assistant {\n    id\n    assistant_name\n    calls_direction\n    engine_type\n    voice_ready\n    voice_missing\n    status\n    phone_number_id\n    voice_id\n    language\n    llm_model\n    llm_temperature\n    timezone\n    who_speaks_first\n    initial_message\n    system_prompt\n    tool_ids\n    end_call_tool {\n      description\n    }\n    variables\n    post_call_schema {\n      name\n      type\n      description\n    }\n    post_call_evaluation\n    max_call_duration\n    max_silence_duration\n    re_engagement_interval\n    speech_speed\n    voice_stability\n    voice_similarity\n    allow_interruptions\n    interrupt_sensitivity\n    use_min_interrupt_words\n    min_interrupt_words\n    false_interruption_timeout_ms\n    keyterms\n    fallback_models\n    fallback_voice_id\n    transcriber\n    backchannel_words\n    pronunciations {\n      word\n      say_as\n    }\n    transfer_numbers {\n      number\n      description\n    }\n    transfer_mode\n    transfer_message\n    endpoint_type\n    endpoint_sensitivity\n    noise_cancellation\n    ambient_sound_volume\n    filler_audios\n    record_call\n    end_call_on_voicemail\n    voicemail_message\n    voicemail_beep_timeout_seconds\n    is_webhook_active\n    webhook_url\n    send_webhook_only_on_completed\n    include_recording_in_webhook\n  }\n"): typeof import('./graphql').ConsoleAssistantFieldsFragmentDoc;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query ConsoleAssistant($id: Int!) {\n    assistant(id: $id) {\n      ...ConsoleAssistantFields\n    }\n  }\n"): typeof import('./graphql').ConsoleAssistantDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query ConsoleAssistantChoices {\n    transcriberProviders {\n      name\n      code\n    }\n    voices {\n      id\n      name\n      mode\n      provider\n    }\n    languages {\n      id\n      name\n    }\n    models {\n      id\n      name\n      provider\n      type\n    }\n    tools {\n      id\n      name\n      description\n    }\n    phoneNumbers {\n      id\n      phone_number\n      assistant_id\n    }\n  }\n"): typeof import('./graphql').ConsoleAssistantChoicesDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation ConsoleCreateAssistant($input: CreateAssistantInput!) {\n    createAssistant(input: $input) {\n      ...ConsoleAssistantFields\n    }\n  }\n"): typeof import('./graphql').ConsoleCreateAssistantDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation ConsoleUpdateAssistant($id: Int!, $input: UpdateAssistantInput!) {\n    updateAssistant(id: $id, input: $input) {\n      ...ConsoleAssistantFields\n    }\n  }\n"): typeof import('./graphql').ConsoleUpdateAssistantDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation ConsoleDeleteAssistant($id: Int!) {\n    deleteAssistant(id: $id)\n  }\n"): typeof import('./graphql').ConsoleDeleteAssistantDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation ConsoleStartWebCall($input: WebCallInput!) {\n    startWebCall(input: $input) {\n      call_id\n      url\n      expires_at\n    }\n  }\n"): typeof import('./graphql').ConsoleStartWebCallDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation ConsoleCallMe($input: MakeCallInput!) {\n    makeCall(input: $input) {\n      call_id\n      status\n    }\n  }\n"): typeof import('./graphql').ConsoleCallMeDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  fragment ConsoleTestRunSummary on TestRun {\n    id\n    status\n    attempts\n    pass_rate\n    assistant_snapshot_hash\n    created_at\n    started_at\n    finished_at\n  }\n"): typeof import('./graphql').ConsoleTestRunSummaryFragmentDoc;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  fragment ConsoleTestResult on TestResult {\n    test_id\n    attempt\n    status\n    error\n    latency_ms\n    transcript {\n      role\n      content\n    }\n    criteria {\n      criterion\n      passed\n      reason\n    }\n    tool_calls {\n      name\n      arguments\n      mocked\n    }\n  }\n"): typeof import('./graphql').ConsoleTestResultFragmentDoc;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query ConsoleAssistantTests($assistant_id: Int!) {\n    assistantTests(assistant_id: $assistant_id) {\n      id\n      name\n      type\n      config\n      updated_at\n    }\n    assistant(id: $assistant_id) {\n      id\n      tools {\n        id\n        name\n      }\n    }\n  }\n"): typeof import('./graphql').ConsoleAssistantTestsDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query ConsoleTestRuns($assistant_id: Int!, $page: Int) {\n    testRuns(assistant_id: $assistant_id, page: $page, per_page: 10) {\n      current_page\n      last_page\n      total\n      from\n      to\n      data {\n        ...ConsoleTestRunSummary\n        results {\n          test_id\n          status\n        }\n      }\n    }\n  }\n"): typeof import('./graphql').ConsoleTestRunsDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query ConsoleTestRun($id: Int!) {\n    testRun(id: $id) {\n      ...ConsoleTestRunSummary\n      results {\n        ...ConsoleTestResult\n      }\n    }\n  }\n"): typeof import('./graphql').ConsoleTestRunDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  subscription ConsoleTestRunUpdated($id: Int!) {\n    testRunUpdated(id: $id) {\n      run {\n        ...ConsoleTestRunSummary\n        results {\n          ...ConsoleTestResult\n        }\n      }\n    }\n  }\n"): typeof import('./graphql').ConsoleTestRunUpdatedDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation ConsoleCreateAssistantTest($assistant_id: Int!, $input: CreateAssistantTestInput!) {\n    createAssistantTest(assistant_id: $assistant_id, input: $input) {\n      id\n    }\n  }\n"): typeof import('./graphql').ConsoleCreateAssistantTestDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation ConsoleUpdateAssistantTest($id: Int!, $input: UpdateAssistantTestInput!) {\n    updateAssistantTest(id: $id, input: $input) {\n      id\n    }\n  }\n"): typeof import('./graphql').ConsoleUpdateAssistantTestDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation ConsoleDeleteAssistantTest($id: Int!) {\n    deleteAssistantTest(id: $id)\n  }\n"): typeof import('./graphql').ConsoleDeleteAssistantTestDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation ConsoleStartTestRun($assistant_id: Int!, $input: StartTestRunInput) {\n    startTestRun(assistant_id: $assistant_id, input: $input) {\n      id\n      status\n    }\n  }\n"): typeof import('./graphql').ConsoleStartTestRunDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query ConsoleCalls(\n    $page: Int\n    $per_page: Int\n    $status: String\n    $type: String\n    $phone_number: String\n    $assistant_id: Int\n    $campaign_id: Int\n    $date_from: String\n    $date_to: String\n  ) {\n    calls(\n      page: $page\n      per_page: $per_page\n      status: $status\n      type: $type\n      phone_number: $phone_number\n      assistant_id: $assistant_id\n      campaign_id: $campaign_id\n      date_from: $date_from\n      date_to: $date_to\n    ) {\n      current_page\n      last_page\n      per_page\n      total\n      from\n      to\n      data {\n        id\n        type\n        status\n        answered_by\n        hangup_reason\n        client_phone_number\n        assistant_name\n        campaign_name\n        duration\n        total_cost\n        created_at\n        evaluation\n      }\n    }\n  }\n"): typeof import('./graphql').ConsoleCallsDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  subscription ConsoleCallsLive($assistant_id: Int, $campaign_id: Int) {\n    callUpdated(assistant_id: $assistant_id, campaign_id: $campaign_id) {\n      id\n      status\n      answered_by\n      hangup_reason\n      duration\n      total_cost\n    }\n  }\n"): typeof import('./graphql').ConsoleCallsLiveDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query ConsoleCallFilterChoices {\n    assistants {\n      id\n      assistant_name\n    }\n    campaigns {\n      id\n      name\n    }\n  }\n"): typeof import('./graphql').ConsoleCallFilterChoicesDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query ConsoleCall($id: Int!) {\n    call(id: $id) {\n      id\n      type\n      status\n      answered_by\n      hangup_reason\n      hangup_detail\n      transferred_to\n      transfer_status\n      transfer_duration\n      assistant_id\n      assistant_name\n      assistant_phone_number\n      client_phone_number\n      campaign_id\n      campaign_name\n      lead_id\n      attempt\n      duration\n      carrier_cost\n      total_cost\n      recording_url\n      transcript\n      turns {\n        speaker\n        text\n        at_ms\n        duration_ms\n        latency {\n          stt_final_ms\n          llm_first_token_ms\n          tts_first_byte_ms\n          first_audio_ms\n        }\n        retrievals {\n          mode\n          query\n          chunks {\n            chunk_id\n            document_id\n            score\n          }\n        }\n      }\n      events {\n        status\n        at\n        detail\n      }\n      variables\n      evaluation\n      latency {\n        p50_ms\n        p95_ms\n        turns\n      }\n      usage {\n        llm_input_tokens\n        llm_output_tokens\n        stt_seconds\n        tts_characters\n      }\n      webhook_response\n      webhook_deliveries {\n        id\n        status\n        event_type\n        created_at\n        next_attempt_at\n        attempts {\n          attempt\n          status_code\n          error\n          latency_ms\n          created_at\n        }\n      }\n      created_at\n      updated_at\n    }\n  }\n"): typeof import('./graphql').ConsoleCallDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  subscription ConsoleCallLive($id: Int!) {\n    callUpdated(id: $id, initial: true) {\n      id\n      status\n      updated_at\n    }\n  }\n"): typeof import('./graphql').ConsoleCallLiveDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation ConsoleHangupCall($id: Int!) {\n    hangupCall(id: $id) {\n      id\n      status\n    }\n  }\n"): typeof import('./graphql').ConsoleHangupCallDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation ConsoleRedeliver($delivery_id: String!) {\n    redeliverWebhook(delivery_id: $delivery_id)\n  }\n"): typeof import('./graphql').ConsoleRedeliverDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  fragment ConsoleCampaignFields on Campaign {\n    id\n    name\n    status\n    paused_reason\n    assistant_id\n    phone_number_ids\n    allowed_days\n    allowed_hours_start_time\n    allowed_hours_end_time\n    timezone\n    window_open\n    next_window_at\n    max_calls_in_parallel\n    max_retries\n    retry_interval\n    retry_on_voicemail\n    retry_on_goal_incomplete\n    goal_completion_variable\n    mark_complete_when_no_leads\n    created_at\n    updated_at\n    stats {\n      leads\n      calls_in_progress\n      attempts\n      total_cost\n    }\n  }\n"): typeof import('./graphql').ConsoleCampaignFieldsFragmentDoc;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query ConsoleCampaigns {\n    campaigns {\n      ...ConsoleCampaignFields\n    }\n  }\n"): typeof import('./graphql').ConsoleCampaignsDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query ConsoleCampaign($id: Int!) {\n    campaign(id: $id) {\n      ...ConsoleCampaignFields\n    }\n  }\n"): typeof import('./graphql').ConsoleCampaignDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  subscription ConsoleCampaignLive($id: Int!) {\n    campaignUpdated(id: $id, initial: true) {\n      ...ConsoleCampaignFields\n    }\n  }\n"): typeof import('./graphql').ConsoleCampaignLiveDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query ConsoleCampaignFormChoices {\n    assistants(calls_direction: \"make\") {\n      id\n      assistant_name\n      post_call_schema {\n        name\n      }\n    }\n    phoneNumbers {\n      id\n      phone_number\n    }\n  }\n"): typeof import('./graphql').ConsoleCampaignFormChoicesDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation ConsoleCreateCampaign($input: CreateCampaignInput!) {\n    createCampaign(input: $input) {\n      ...ConsoleCampaignFields\n    }\n  }\n"): typeof import('./graphql').ConsoleCreateCampaignDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation ConsoleUpdateCampaign($id: Int!, $input: UpdateCampaignInput!) {\n    updateCampaign(id: $id, input: $input) {\n      ...ConsoleCampaignFields\n    }\n  }\n"): typeof import('./graphql').ConsoleUpdateCampaignDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation ConsoleStartCampaign($id: Int!) {\n    startCampaign(id: $id) {\n      ...ConsoleCampaignFields\n    }\n  }\n"): typeof import('./graphql').ConsoleStartCampaignDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation ConsoleStopCampaign($id: Int!) {\n    stopCampaign(id: $id) {\n      ...ConsoleCampaignFields\n    }\n  }\n"): typeof import('./graphql').ConsoleStopCampaignDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation ConsoleDeleteCampaign($id: Int!) {\n    deleteCampaign(id: $id)\n  }\n"): typeof import('./graphql').ConsoleDeleteCampaignDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  fragment ConsoleLeadImportFields on LeadImport {\n    id\n    campaign_id\n    status\n    rows_total\n    rows_read\n    created\n    duplicates\n    blacklisted\n    invalid\n    failure\n    errors {\n      line\n      field\n      message\n    }\n  }\n"): typeof import('./graphql').ConsoleLeadImportFieldsFragmentDoc;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation ConsoleImportLeads($input: ImportLeadsInput!) {\n    importLeads(input: $input) {\n      ...ConsoleLeadImportFields\n    }\n  }\n"): typeof import('./graphql').ConsoleImportLeadsDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  subscription ConsoleLeadImportLive($id: Int!) {\n    leadImportUpdated(id: $id) {\n      ...ConsoleLeadImportFields\n    }\n  }\n"): typeof import('./graphql').ConsoleLeadImportLiveDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query ConsoleLeads($campaign_id: Int!, $page: Int, $per_page: Int, $status: String, $phone_number: String) {\n    leads(campaign_id: $campaign_id, page: $page, per_page: $per_page, status: $status, phone_number: $phone_number) {\n      current_page\n      last_page\n      per_page\n      total\n      from\n      to\n      data {\n        id\n        phone_number\n        status\n        attempts\n        next_attempt_at\n        variables\n        updated_at\n      }\n    }\n  }\n"): typeof import('./graphql').ConsoleLeadsDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  subscription ConsoleLeadLive($campaign_id: Int) {\n    leadUpdated(campaign_id: $campaign_id) {\n      id\n      status\n      attempts\n      next_attempt_at\n      updated_at\n    }\n  }\n"): typeof import('./graphql').ConsoleLeadLiveDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query ConsoleLeadDetail($id: Int!, $campaign_id: Int!, $phone_number: String!) {\n    lead(id: $id) {\n      id\n      phone_number\n      status\n      attempts\n      variables\n      secondary_contacts {\n        id\n        phone_number\n        status\n      }\n    }\n    calls(campaign_id: $campaign_id, phone_number: $phone_number, per_page: 50) {\n      data {\n        id\n        attempt\n        status\n        duration\n        total_cost\n        created_at\n        client_phone_number\n        lead_id\n      }\n    }\n  }\n"): typeof import('./graphql').ConsoleLeadDetailDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation ConsoleCreateLead($input: CreateLeadInput!) {\n    createLead(input: $input) {\n      id\n    }\n  }\n"): typeof import('./graphql').ConsoleCreateLeadDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query ConsoleTools {\n    tools {\n      id\n      name\n      description\n      endpoint\n      method\n      timeout\n      speak_during\n      headers {\n        name\n        value\n      }\n      schema {\n        name\n        type\n        description\n      }\n      updated_at\n    }\n  }\n"): typeof import('./graphql').ConsoleToolsDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation ConsoleCreateTool($input: CreateToolInput!) {\n    createTool(input: $input) {\n      id\n    }\n  }\n"): typeof import('./graphql').ConsoleCreateToolDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation ConsoleUpdateTool($id: Int!, $input: UpdateToolInput!) {\n    updateTool(id: $id, input: $input) {\n      id\n    }\n  }\n"): typeof import('./graphql').ConsoleUpdateToolDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation ConsoleDeleteTool($id: Int!) {\n    deleteTool(id: $id)\n  }\n"): typeof import('./graphql').ConsoleDeleteToolDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query ConsolePhoneNumbers {\n    phoneNumbers {\n      id\n      phone_number\n      nickname\n      sms_capable\n      expires_at\n      assistant_id\n      monthly_price\n      renews\n    }\n    assistants {\n      id\n      assistant_name\n    }\n    me {\n      id\n      balance\n      currency\n    }\n  }\n"): typeof import('./graphql').ConsolePhoneNumbersDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query ConsoleAvailablePhoneNumbers($country_code: String, $contains: String) {\n    availablePhoneNumbers(country_code: $country_code, contains: $contains) {\n      phone_number\n      friendly_name\n      locality\n      region\n      iso_country\n      capabilities {\n        voice\n        sms\n        mms\n      }\n      monthly_price\n    }\n  }\n"): typeof import('./graphql').ConsoleAvailablePhoneNumbersDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation ConsolePurchasePhoneNumber($input: PurchasePhoneNumberInput!) {\n    purchasePhoneNumber(input: $input) {\n      id\n      phone_number\n    }\n  }\n"): typeof import('./graphql').ConsolePurchasePhoneNumberDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation ConsoleUpdatePhoneNumber($id: Int!, $input: UpdatePhoneNumberInput!) {\n    updatePhoneNumber(id: $id, input: $input) {\n      id\n      nickname\n    }\n  }\n"): typeof import('./graphql').ConsoleUpdatePhoneNumberDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation ConsoleReleasePhoneNumber($id: Int!) {\n    releasePhoneNumber(id: $id)\n  }\n"): typeof import('./graphql').ConsoleReleasePhoneNumberDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query ConsoleDnc {\n    dncNumbers {\n      phone_number\n      created_at\n    }\n  }\n"): typeof import('./graphql').ConsoleDncDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation ConsoleAddDnc($phone_number: String!) {\n    addDncNumber(phone_number: $phone_number) {\n      phone_number\n    }\n  }\n"): typeof import('./graphql').ConsoleAddDncDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation ConsoleRemoveDnc($phone_number: String!) {\n    removeDncNumber(phone_number: $phone_number)\n  }\n"): typeof import('./graphql').ConsoleRemoveDncDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query ConsoleWebhookEndpoints {\n    webhookEndpoints {\n      id\n      url\n      events\n      disabled_at\n      created_at\n    }\n  }\n"): typeof import('./graphql').ConsoleWebhookEndpointsDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query ConsoleWebhookEndpoint($id: Int!) {\n    webhookEndpoint(id: $id) {\n      id\n      url\n      events\n      disabled_at\n      created_at\n      deliveries(last: 50) {\n        id\n        event_type\n        status\n        created_at\n        next_attempt_at\n        payload\n        attempts {\n          attempt\n          status_code\n          error\n          latency_ms\n          created_at\n          response_body\n        }\n      }\n    }\n  }\n"): typeof import('./graphql').ConsoleWebhookEndpointDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation ConsoleCreateWebhookEndpoint($url: String!, $events: [String!]!) {\n    createWebhookEndpoint(url: $url, events: $events) {\n      id\n      secret\n      warning\n    }\n  }\n"): typeof import('./graphql').ConsoleCreateWebhookEndpointDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation ConsoleDeleteWebhookEndpoint($id: Int!) {\n    deleteWebhookEndpoint(id: $id)\n  }\n"): typeof import('./graphql').ConsoleDeleteWebhookEndpointDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query ConsoleApiTokens {\n    apiTokens {\n      id\n      prefix\n      name\n      created_at\n      last_used_at\n    }\n  }\n"): typeof import('./graphql').ConsoleApiTokensDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation ConsoleCreateApiToken($name: String) {\n    createApiToken(name: $name) {\n      token\n      api_token {\n        id\n        prefix\n      }\n    }\n  }\n"): typeof import('./graphql').ConsoleCreateApiTokenDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation ConsoleRevokeApiToken($id: Int!) {\n    revokeApiToken(id: $id)\n  }\n"): typeof import('./graphql').ConsoleRevokeApiTokenDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query ConsoleVoiceVendors {\n    voiceVendors {\n      code\n      name\n      parts\n      configured\n      hosted\n      variables\n    }\n  }\n"): typeof import('./graphql').ConsoleVoiceVendorsDocument;


export function graphql(source: string) {
  return (documents as any)[source] ?? {};
}
