-- The peer's access, made once in the benchmark's own database (never in vozgate's): a role
-- that reads calls, a policy that scopes them to the account the server set, and the
-- status + date-range listing as a function (PostGraphile exposes it with paging and
-- totalCount). The table owner, which vozgate and the floor connect as, is not affected.
do $$ begin create role vozgate_peer nologin; exception when duplicate_object then null; end $$;
grant vozgate_peer to current_user;
grant usage on schema public to vozgate_peer;
grant select on calls to vozgate_peer;
alter table calls enable row level security;
drop policy if exists calls_of_account on calls;
create policy calls_of_account on calls for select to vozgate_peer
  using (account_id = nullif(current_setting('vozgate.account_id', true), '')::int);
create or replace function calls_in_range(status text, date_from date, date_to date) returns setof calls
  language sql stable as $$
    select * from calls c
    where c.status = calls_in_range.status and c.created_at >= date_from and c.created_at < date_to + 1
    order by c.created_at desc, c.id desc
  $$;
grant execute on function calls_in_range(text, date, date) to vozgate_peer;
