import { graphql } from '../../gql';

export const MeDocument = graphql(`
  query ConsoleMe($limit: Int!) {
    me {
      id
      name
      email
      balance
      ledger(limit: $limit) {
        id
        kind
        amount
        balance_after
        reference
        created_at
      }
    }
  }
`);

/** Any call of the account that changes: the balance moves when one ends. */
export const AccountCallsDocument = graphql(`
  subscription ConsoleAccountCalls {
    callUpdated {
      id
      status
    }
  }
`);
