import { TWILIO_WEBHOOK_PATHS, twilioWebhook } from '../telephony/twilio.callbacks';
import { engineApi } from '../voice/engine.api';
import type { HttpRoute } from './route';

/**
 * What machines call during a call: Twilio's callbacks (their own paths as labels, answered
 * 404 unless the provider is Twilio) and the engine API for external engines.
 */
export function callRoutes(runtime: Parameters<typeof twilioWebhook>[0] & Parameters<typeof engineApi>[0]): HttpRoute[] {
  return [
    {
      match: ({ path }) => path.startsWith('/telephony/twilio/'),
      label: ({ path }) => (TWILIO_WEBHOOK_PATHS.includes(path) ? path : 'unmatched'),
      handle: ({ req, res, url }) => twilioWebhook(runtime, req, res, url),
    },
    {
      match: ({ path }) => path.startsWith('/engine/'),
      label: ({ path }) => (path.startsWith('/engine/calls/') ? '/engine/calls/*' : 'unmatched'),
      handle: ({ req, res, path }) => engineApi(runtime, req, res, path),
    },
  ];
}
