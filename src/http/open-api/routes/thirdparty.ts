/**
 * T1, the third-party event endpoint (spec 4.4, COMPAT.md). It never answers with the REST
 * envelope: every reply, including auth and parse failures, is HTTP 200 with
 * `{header:{name:"Response"|"ErrorResponse", message_id, version}, payload}`.
 */
import type { FastifyReply } from 'fastify';
import { any, map, obj, oneOf, opt, str } from '../../../catalog/schema.ts';
import type { InboundResult } from '../../../core/devices/inbox.ts';
import { isObject } from '../../../lib/object.ts';
import { checkServiceAddress } from '../../../lib/service-address.ts';
import { bearerToken } from '../auth.ts';
import { type RouteSpec, route } from '../route.ts';
import type { OpenApiServices } from '../services.ts';

/** A DiscoveryRequest with many endpoints is larger than a REST body. */
const BODY_LIMIT = 8 * 1024 * 1024;

function send(res: FastifyReply, messageId: string, version: string, result: InboundResult) {
  const header = { name: result.ok ? 'Response' : 'ErrorResponse', message_id: messageId, version };
  const payload = result.ok ? result.payload : { type: result.type, description: result.description };
  res.outcome = result.ok ? 'Response' : result.type;
  return res.code(200).type('application/json; charset=utf-8').send({ header, payload });
}

function echo(v: unknown, fallback: string): string {
  if (typeof v === 'string') return v.slice(0, 200);
  if (typeof v === 'number' && Number.isFinite(v)) return String(v);
  return fallback;
}

function registerEngine(s: OpenApiServices, payload: unknown, tokenId: string): InboundResult {
  if (!isObject(payload)) return { ok: false, type: 'INVALID_PARAMETERS', description: 'payload: expected an object' };
  const errors: string[] = [];
  const address = checkServiceAddress(payload.service_address, 'payload.service_address');
  if (!address.ok) errors.push(address.message);
  const name = payload.name;
  if (typeof name !== 'string' || name.trim() === '')
    errors.push(`payload.name: ${name === undefined ? 'required' : 'must be a non-empty string'}`);
  else if (name.length > 256) errors.push('payload.name: longer than 256 characters');
  if (errors.length > 0 || !address.ok)
    return { ok: false, type: 'INVALID_PARAMETERS', description: errors.join('; ') };
  const engine = s.engines.register(address.url, name as string, tokenId);
  return { ok: true, payload: { engine_id: engine.id } };
}

/** The T1 request as documented (the handler reads it, answering in T1's own format). */
const eventBody = obj(
  {
    event: obj({
      header: obj({
        name: oneOf(
          'DiscoveryRequest',
          'DeviceStatesChangeReport',
          'DeviceOnlineChangeReport',
          'DeviceInformationUpdatedReport',
          'RegisterTTSEngine',
        ),
        message_id: str({ doc: 'a version 4 UUID, echoed' }),
        version: str({ doc: '`1` or `2`, echoed' }),
      }),
      endpoint: opt(obj({ serial_number: str(), third_serial_number: str(), tags: opt(map(any())) }, { open: true })),
      payload: any('depends on header.name (spec 4.4)'),
    }),
  },
  { open: true },
);

/** T1 `POST thirdparty/event`. */
export function thirdPartyRoutes(s: OpenApiServices): RouteSpec[] {
  return [
    route({
      id: 'T1',
      method: 'POST',
      path: '/thirdparty/event',
      summary: 'Events of third-party devices and bridges (and RegisterTTSEngine)',
      description:
        'Answers `{header:{name:"Response"|"ErrorResponse", message_id, version}, payload}` with HTTP 200, also for auth (AUTH_FAILURE) and parse failures (INVALID_PARAMETERS); never the REST envelope.',
      auth: 'handler',
      envelope: false,
      bodyLimit: BODY_LIMIT,
      requestDoc: eventBody,
      // Parse errors and faults keep the event shape too: clients read `header.name` unguarded.
      onError(err, req, res) {
        // A 4xx status is a client fault (e.g. a body the client cut off), not the gateway's.
        const clientFault = err.statusCode !== undefined && err.statusCode >= 400 && err.statusCode < 500;
        const parseError =
          err.code?.startsWith('FST_ERR_CTP') || (err as { error?: number }).error === 400 || clientFault;
        if (!parseError) s.log.error({ err, url: req.url }, 'third-party event failed');
        return send(
          res,
          '',
          '1',
          parseError
            ? { ok: false, type: 'INVALID_PARAMETERS', description: err.message }
            : { ok: false, type: 'INTERNAL_ERROR', description: 'the gateway failed while handling the event' },
        );
      },
      handle({ req, reply }) {
        const body = req.body;
        const event = isObject(body) && isObject(body.event) ? body.event : undefined;
        const header = event && isObject(event.header) ? event.header : undefined;
        const messageId = echo(header?.message_id, '');
        const version = echo(header?.version, '1');
        const token = s.tokens.verify(bearerToken(req.headers.authorization));
        let result: InboundResult;
        if (!token) result = { ok: false, type: 'AUTH_FAILURE', description: 'headers.Authorization is invalid' };
        else if (!event)
          result = {
            ok: false,
            type: 'INVALID_PARAMETERS',
            description: 'event: expected an object `{event:{header, endpoint, payload}}`',
          };
        else if (!header || typeof header.name !== 'string')
          result = {
            ok: false,
            type: 'INVALID_PARAMETERS',
            description: `header.name: ${header ? 'required' : 'header is required'}`,
          };
        else {
          try {
            result =
              header.name === 'RegisterTTSEngine'
                ? registerEngine(s, event.payload, token.id)
                : s.inbox.handle({
                    name: header.name,
                    version,
                    endpoint: event.endpoint,
                    payload: event.payload,
                    token: { id: token.id, app_name: token.app_name },
                  });
          } catch (err) {
            s.log.error({ err, name: header.name }, 'third-party event failed');
            result = { ok: false, type: 'INTERNAL_ERROR', description: 'the gateway failed while handling the event' };
          }
        }
        s.log.debug(
          { event: header?.name, message_id: messageId, result: result.ok ? 'Response' : result.type },
          'third-party event',
        );
        s.log.trace?.({ body }, 'third-party event body');
        send(reply, messageId, version, result);
        return { sent: true };
      },
    }),
  ];
}
