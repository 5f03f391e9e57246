/**
 * T1, the third-party event endpoint (spec 4.4, COMPAT.md). It never answers with the REST
 * envelope: every reply, including auth and parse failures, is HTTP 200 with
 * `{header:{name:"Response"|"ErrorResponse", message_id, version}, payload}`.
 */
import type { FastifyReply } from 'fastify';
import { compileStrict, compileTop } from '../../../catalog/compile-strict.ts';
import { ApiError, ErrorCode, errorMessages, eventErrorType } from '../../../catalog/errors.ts';
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
  // The core's failure as the third-party protocol writes it.
  const type = result.ok ? undefined : eventErrorType(result.code);
  const payload = result.ok ? result.payload : { type, description: result.message };
  res.outcome = type ?? 'Response';
  return res.code(200).type('application/json; charset=utf-8').send({ header, payload });
}

function echo(v: unknown, fallback: string): string {
  if (typeof v === 'string') return v.slice(0, 200);
  if (typeof v === 'number' && Number.isFinite(v)) return String(v);
  return fallback;
}

/** RegisterTTSEngine's payload; the service address is then judged by the one address check. */
const enginePayload = obj(
  {
    service_address: str({ doc: 'the http(s) URL the gateway sends SyncTTSAudioList and SynthesizeSpeech to' }),
    name: str({ maxLength: 256, pattern: /\S/, patternDoc: 'a non-empty name' }),
  },
  { open: true },
);
const checkEnginePayload = compileStrict(enginePayload);

function registerEngine(s: OpenApiServices, payload: unknown, tokenId: string): InboundResult {
  const errors: string[] = [];
  checkEnginePayload(payload, 'payload', errors);
  const fields = isObject(payload) ? payload : {};
  // A string the schema took is then judged by the one check of service addresses (an http(s) URL).
  const address =
    typeof fields.service_address === 'string'
      ? checkServiceAddress(fields.service_address, 'payload.service_address')
      : undefined;
  if (address && !address.ok) errors.push(address.message);
  if (errors.length > 0 || !address?.ok)
    return { ok: false, code: ErrorCode.INVALID_PARAMETERS, message: errors.join('; ') };
  const engine = s.engines.register(address.url, fields.name as string, tokenId);
  return { ok: true, payload: { engine_id: engine.id } };
}

/**
 * What T1 reads before it dispatches on `header.name`: the event, its header and the name. Open:
 * endpoint and payload are the inbox's to check, and other fields are ignored. Messages name paths
 * inside the event (`header.name`), as the inbox's do (`payload.endpoints.0...`).
 */
const checkBody = compileTop(obj({ event: obj({}, { open: true }) }, { open: true }), 'body');
const checkEvent = compileTop(obj({ header: obj({ name: str() }, { open: true }) }, { open: true }), 'event');

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
          err.code?.startsWith('FST_ERR_CTP') || (err instanceof ApiError && err.failure.code === 400) || clientFault;
        if (!parseError) s.log.error({ err, url: req.url }, 'third-party event failed');
        return send(
          res,
          '',
          '1',
          parseError
            ? { ok: false, code: ErrorCode.INVALID_PARAMETERS, message: err.message }
            : { ok: false, code: ErrorCode.SERVER_ERROR, message: 'the gateway failed while handling the event' },
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
        const problems = [...checkBody(body), ...(event ? checkEvent(event) : [])];
        // Add-ons compare the AUTH_FAILURE text (COMPAT.md): the error catalog's, not `path: rule`.
        if (!token) result = { ok: false, code: ErrorCode.AUTH_FAILED, message: errorMessages[ErrorCode.AUTH_FAILED] };
        // The compiled checks name every problem; the rest of the condition narrows the types.
        else if (problems.length > 0 || !event || !header || typeof header.name !== 'string')
          result = { ok: false, code: ErrorCode.INVALID_PARAMETERS, message: problems.join('; ') };
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
            result = {
              ok: false,
              code: ErrorCode.SERVER_ERROR,
              message: 'the gateway failed while handling the event',
            };
          }
        }
        s.log.debug(
          { event: header?.name, message_id: messageId, result: result.ok ? 'Response' : eventErrorType(result.code) },
          'third-party event',
        );
        s.log.trace?.({ body }, 'third-party event body');
        send(reply, messageId, version, result);
        return { sent: true };
      },
    }),
  ];
}
