import { graphql } from '../../gql';

export const MeDocument = graphql(`
  query ConsoleMe {
    me {
      id
      name
      email
      balance
      currency
    }
  }
`);

/** A slice of the balance's history, newest first; `next_after` is where the next (older) one starts. */
export const LedgerSliceDocument = graphql(`
  query ConsoleLedgerSlice($after: String, $per_page: Int) {
    me {
      ledgerFeed(after: $after, per_page: $per_page) {
        data {
          id
          kind
          amount
          balance_after
          reference
          created_at
        }
        next_after
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
