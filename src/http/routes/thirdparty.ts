/**
 * T1, the third-party event endpoint (spec 4.4, COMPAT.md). It never answers with the REST
 * envelope: every reply, including auth and parse failures, is HTTP 200 with
 * `{header:{name:"Response"|"ErrorResponse", message_id, version}, payload}`.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { DeviceEventInbox, InboundResult } from '../../core/devices/inbox.ts';
import type { TokenService } from '../../core/tokens.ts';
import type { TtsEngines } from '../../core/tts/engines.ts';
import type { RestModule } from '../app.ts';
import { bearerToken } from '../auth.ts';
import { isObject } from '../body.ts';

export interface ThirdPartyDeps {
  tokens: TokenService;
  inbox: DeviceEventInbox;
  tts: TtsEngines;
  log?: { error(obj: object, msg: string): void };
}

/** A DiscoveryRequest with many endpoints is larger than a REST body. */
const BODY_LIMIT = 8 * 1024 * 1024;

function reply(res: FastifyReply, messageId: string, version: string, result: InboundResult) {
  const header = { name: result.ok ? 'Response' : 'ErrorResponse', message_id: messageId, version };
  const payload = result.ok ? result.payload : { type: result.type, description: result.description };
  return res.code(200).type('application/json; charset=utf-8').send({ header, payload });
}

function echo(v: unknown, fallback: string): string {
  if (typeof v === 'string') return v.slice(0, 200);
  if (typeof v === 'number' && Number.isFinite(v)) return String(v);
  return fallback;
}

function registerEngine(deps: ThirdPartyDeps, payload: unknown, tokenId: string): InboundResult {
  if (!isObject(payload)) return { ok: false, type: 'INVALID_PARAMETERS', description: 'payload: expected an object' };
  const address = payload.service_address;
  const name = payload.name;
  const errors: string[] = [];
  let url: URL | undefined;
  try {
    url = typeof address === 'string' && address.trim() !== '' ? new URL(address.trim()) : undefined;
  } catch {
    url = undefined;
  }
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:'))
    errors.push(
      `payload.service_address: ${address === undefined ? 'required' : `${JSON.stringify(address)} is not an http(s) URL`}`,
    );
  if (typeof name !== 'string' || name.trim() === '')
    errors.push(`payload.name: ${name === undefined ? 'required' : 'must be a non-empty string'}`);
  else if (name.length > 256) errors.push('payload.name: longer than 256 characters');
  if (errors.length > 0) return { ok: false, type: 'INVALID_PARAMETERS', description: errors.join('; ') };
  const engine = deps.tts.register((address as string).trim(), name as string, tokenId);
  return { ok: true, payload: { engine_id: engine.id } };
}

/** Third-party module: T1 `POST thirdparty/event`. */
export function thirdPartyRoutes(deps: ThirdPartyDeps): RestModule {
  return (app) => {
    app.post(
      '/thirdparty/event',
      {
        bodyLimit: BODY_LIMIT,
        // Parse errors and faults keep the event shape too: clients read `header.name` unguarded.
        errorHandler: (err: Error & { code?: string; statusCode?: number }, req, res) => {
          // A 4xx status is a client fault (e.g. a body the client cut off), not the gateway's.
          const clientFault = err.statusCode !== undefined && err.statusCode >= 400 && err.statusCode < 500;
          const parseError =
            err.code?.startsWith('FST_ERR_CTP') || (err as { error?: number }).error === 400 || clientFault;
          if (!parseError) deps.log?.error({ err, url: req.url }, 'third-party event failed');
          return reply(
            res,
            '',
            '1',
            parseError
              ? { ok: false, type: 'INVALID_PARAMETERS', description: err.message }
              : { ok: false, type: 'INTERNAL_ERROR', description: 'the gateway failed while handling the event' },
          );
        },
      },
      async (req: FastifyRequest, res: FastifyReply) => {
        const body = req.body;
        const event = isObject(body) && isObject(body.event) ? body.event : undefined;
        const header = event && isObject(event.header) ? event.header : undefined;
        const messageId = echo(header?.message_id, '');
        const version = echo(header?.version, '1');
        const token = deps.tokens.verify(bearerToken(req.headers.authorization));
        if (!token)
          return reply(res, messageId, version, {
            ok: false,
            type: 'AUTH_FAILURE',
            description: 'headers.Authorization is invalid',
          });
        if (!event)
          return reply(res, messageId, version, {
            ok: false,
            type: 'INVALID_PARAMETERS',
            description: 'event: expected an object `{event:{header, endpoint, payload}}`',
          });
        if (!header || typeof header.name !== 'string')
          return reply(res, messageId, version, {
            ok: false,
            type: 'INVALID_PARAMETERS',
            description: `header.name: ${header ? 'required' : 'header is required'}`,
          });
        let result: InboundResult;
        try {
          result =
            header.name === 'RegisterTTSEngine'
              ? registerEngine(deps, event.payload, token.id)
              : deps.inbox.handle({
                  name: header.name,
                  version,
                  endpoint: event.endpoint,
                  payload: event.payload,
                  token: { id: token.id, app_name: token.app_name },
                });
        } catch (err) {
          deps.log?.error({ err, name: header.name }, 'third-party event failed');
          result = { ok: false, type: 'INTERNAL_ERROR', description: 'the gateway failed while handling the event' };
        }
        return reply(res, messageId, version, result);
      },
    );
  };
}
