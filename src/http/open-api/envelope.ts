import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiError, type ErrorCodeValue, errorMessages } from '../../catalog/errors.ts';

/** The REST envelope of spec 2.2. */
export interface Envelope<T = Record<string, unknown>> {
  error: number;
  data: T | Record<string, never>;
  message: string;
}

/** A success envelope. */
export function ok<T>(data?: T): Envelope<T> {
  return { error: 0, data: data ?? {}, message: 'success' };
}

/** A failure envelope: data is always `{}`. */
export function fail(error: ErrorCodeValue, message?: string): Envelope {
  return { error, data: {}, message: message ?? errorMessages[error] };
}

/** Throws a 400 that names the offending field. */
export function badRequest(message: string): never {
  throw new ApiError(400, message);
}

/** The API version segment (`v1` or `v2`) of the URL a request came in on. */
export function apiVersion(req: FastifyRequest): string {
  const m = /^\/open-api\/(v\d+)\//.exec(req.url);
  return m?.[1] ?? 'v2';
}

/** Sends a failure as HTTP 200 with the envelope, as every client of this API expects. */
export function sendFailure(reply: FastifyReply, error: ErrorCodeValue, message?: string): FastifyReply {
  reply.outcome = String(error);
  return reply.code(200).type('application/json; charset=utf-8').send(fail(error, message));
}
