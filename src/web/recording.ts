import { pipeline } from 'node:stream';
import type { MikroORM } from '@mikro-orm/postgresql';
import { Messages } from '../errors';
import { sendError } from '../http';
import { sameSecret, type SecretBox } from '../lib/secrets';
import { Call } from '../modules/calls/call.entity';
import { recordingSignature } from '../modules/calls/call.lifecycle';
import { turnsOfCall } from '../modules/calls/call.turns';
import { RecordingCache, simulatedRecording } from '../telephony/recording';
import { parseByteRange } from './byte-range';
import type { HttpRoute } from './route';

/**
 * GET /recordings/{call id}.wav?sig=...: a call's recording, for whoever holds its signed URL.
 * It answers `Range: bytes=` requests (206), which browsers' audio elements send to seek.
 */
export function recordingRoute(orm: MikroORM, secrets: SecretBox, cache = new RecordingCache()): HttpRoute {
  return {
    match: ({ path }) => path.startsWith('/recordings/'),
    label: '/recordings/*',
    async handle({ req, res, url }) {
      const match = /^\/recordings\/(\d{1,10})\.wav$/.exec(url.pathname);
      const id = match ? Number(match[1]) : NaN;
      if (!match || !Number.isSafeInteger(id) || !sameSecret(url.searchParams.get('sig'), recordingSignature(secrets, id))) {
        return sendError(res, 'NOT_FOUND', Messages.routeNotFound);
      }
      const call = await orm.em.fork().findOne(Call, { id });
      if (!call?.recording_url) return sendError(res, 'NOT_FOUND', Messages.routeNotFound);
      const turns = await turnsOfCall(orm.em.fork(), id);
      const recording = await cache.recording(String(id), JSON.stringify([call.duration, turns]), () => simulatedRecording(call.duration, turns));
      const headers = { 'content-type': 'audio/wav', 'accept-ranges': 'bytes', 'cache-control': 'private, max-age=3600' };
      // The file has no validators (ETag, Last-Modified) an If-Range could name: such a request gets it whole.
      const range = req.headers['if-range'] === undefined ? parseByteRange(req.headers.range, recording.length) : { kind: 'whole' as const };
      if (range.kind === 'unsatisfiable') {
        res.writeHead(416, { ...headers, 'content-range': `bytes */${recording.length}` });
        return void res.end();
      }
      const [start, end] = range.kind === 'range' ? [range.start, range.end] : [0, recording.length - 1];
      res.writeHead(range.kind === 'range' ? 206 : 200, {
        ...headers,
        ...(range.kind === 'range' ? { 'content-range': `bytes ${start}-${end}/${recording.length}` } : {}),
        'content-length': end - start + 1,
      });
      if (req.method === 'HEAD') return void res.end();
      // A player that goes away stops it.
      pipeline(recording.stream(start, end), res, () => {});
    },
  };
}
