// The peer in `npm run bench`: PostGraphile 5 (Amber preset) over the same tables, as a user
// would set it up for a GraphQL API over PostgreSQL. It checks the same bearer token as the
// floor (one statement) and scopes rows with row-level security on the role it switches to;
// `setup.sql` creates that role, its policy and the date-range function. Runs on Node 24.
import { createHash } from 'node:crypto';
import { createServer } from 'node:http';
import pg from 'pg';
import { postgraphile } from 'postgraphile';
import { makePgService } from 'postgraphile/adaptors/pg';
import { grafserv } from 'postgraphile/grafserv/node';
import { PostGraphileAmberPreset } from 'postgraphile/presets/amber';

const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: Number(process.env.POOL_MAX ?? 10) });

async function accountOf(authorization) {
  const token = /^Bearer (\S+)$/.exec(authorization ?? '')?.[1];
  if (!token) return '';
  const digest = createHash('sha256').update(token).digest('hex');
  const { rows } = await pool.query('select account_id from api_tokens where token_hash = $1', [digest]);
  return rows[0] ? String(rows[0].account_id) : '';
}

const preset = {
  extends: [PostGraphileAmberPreset],
  pgServices: [makePgService({ pool, schemas: ['public'] })],
  grafserv: { graphqlPath: '/graphql', graphiql: false, watch: false },
  grafast: {
    explain: false,
    async context(requestContext) {
      const account = await accountOf(requestContext.node?.req.headers.authorization);
      return { pgSettings: { role: 'vozgate_peer', 'vozgate.account_id': account } };
    },
  },
};

const pgl = postgraphile(preset);
const serv = pgl.createServ(grafserv);
const server = createServer();
await serv.addTo(server);
server.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => {
  process.stdout.write(`peer listening on ${server.address().port}\n`);
});
process.on('SIGTERM', () => {
  server.close();
  pgl.release().then(() => pool.end()).then(() => process.exit(0));
});
