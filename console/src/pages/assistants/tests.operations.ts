import { graphql } from '../../gql';

/** The Tests tab's operations (design.md, "Assistant tests"): the public GraphQL API only. */

export const TestRunSummaryFragment = graphql(`
  fragment ConsoleTestRunSummary on TestRun {
    id
    status
    attempts
    pass_rate
    assistant_snapshot_hash
    created_at
    started_at
    finished_at
  }
`);

export const TestResultFragment = graphql(`
  fragment ConsoleTestResult on TestResult {
    test_id
    attempt
    status
    error
    latency_ms
    transcript {
      role
      content
    }
    criteria {
      criterion
      passed
      reason
    }
    tool_calls {
      name
      arguments
      mocked
    }
  }
`);

export const AssistantTestsDocument = graphql(`
  query ConsoleAssistantTests($assistant_id: Int!) {
    assistantTests(assistant_id: $assistant_id) {
      id
      name
      type
      config
      updated_at
    }
    assistant(id: $assistant_id) {
      id
      tools {
        id
        name
      }
    }
  }
`);

export const TestRunsDocument = graphql(`
  query ConsoleTestRuns($assistant_id: Int!, $page: Int) {
    testRuns(assistant_id: $assistant_id, page: $page, per_page: 10) {
      current_page
      last_page
      total
      from
      to
      data {
        ...ConsoleTestRunSummary
        results {
          test_id
          status
        }
      }
    }
  }
`);

export const TestRunDocument = graphql(`
  query ConsoleTestRun($id: Int!) {
    testRun(id: $id) {
      ...ConsoleTestRunSummary
      results {
        ...ConsoleTestResult
      }
    }
  }
`);

export const TestRunUpdatedDocument = graphql(`
  subscription ConsoleTestRunUpdated($id: Int!) {
    testRunUpdated(id: $id) {
      run {
        ...ConsoleTestRunSummary
        results {
          ...ConsoleTestResult
        }
      }
    }
  }
`);

export const CreateAssistantTestDocument = graphql(`
  mutation ConsoleCreateAssistantTest($assistant_id: Int!, $input: CreateAssistantTestInput!) {
    createAssistantTest(assistant_id: $assistant_id, input: $input) {
      id
    }
  }
`);

export const UpdateAssistantTestDocument = graphql(`
  mutation ConsoleUpdateAssistantTest($id: Int!, $input: UpdateAssistantTestInput!) {
    updateAssistantTest(id: $id, input: $input) {
      id
    }
  }
`);

export const DeleteAssistantTestDocument = graphql(`
  mutation ConsoleDeleteAssistantTest($id: Int!) {
    deleteAssistantTest(id: $id)
  }
`);

export const StartTestRunDocument = graphql(`
  mutation ConsoleStartTestRun($assistant_id: Int!, $input: StartTestRunInput) {
    startTestRun(assistant_id: $assistant_id, input: $input) {
      id
      status
    }
  }
`);
