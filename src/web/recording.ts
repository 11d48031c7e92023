import type { MikroORM } from '@mikro-orm/postgresql';
import { Messages } from '../errors';
import { sendError } from '../http';
import { sameSecret, type SecretBox } from '../lib/secrets';
import { Call } from '../modules/calls/call.entity';
import { recordingSignature } from '../modules/calls/call.lifecycle';
import { simulatedRecording } from '../telephony/recording';
import type { HttpRoute } from './route';

/** GET /recordings/{call id}.wav?sig=...: a call's recording, for whoever holds its signed URL. */
export function recordingRoute(orm: MikroORM, secrets: SecretBox): HttpRoute {
  return {
    match: ({ path }) => path.startsWith('/recordings/'),
    label: '/recordings/*',
    async handle({ res, url }) {
      const match = /^\/recordings\/(\d{1,10})\.wav$/.exec(url.pathname);
      const id = match ? Number(match[1]) : NaN;
      if (!match || !Number.isSafeInteger(id) || !sameSecret(url.searchParams.get('sig'), recordingSignature(secrets, id))) {
        return sendError(res, 'NOT_FOUND', Messages.routeNotFound);
      }
      const call = await orm.em.fork().findOne(Call, { id });
      if (!call?.recording_url) return sendError(res, 'NOT_FOUND', Messages.routeNotFound);
      const { length, stream } = simulatedRecording(call.duration);
      res.writeHead(200, { 'content-type': 'audio/wav', 'content-length': length, 'cache-control': 'private, max-age=3600' });
      stream.pipe(res);
    },
  };
}
