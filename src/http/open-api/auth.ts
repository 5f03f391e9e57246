import type { FastifyReply, FastifyRequest } from 'fastify';
import type { TokenInfo, TokenService } from '../../core/tokens.ts';
import { sendFailure } from './envelope.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** The token that authorised the request (set by requireAuth). */
    token?: TokenInfo;
  }
}

/** The token in `Authorization: Bearer <token>` (a bare token is accepted too); empty counts as none. */
export function bearerToken(header: string | string[] | undefined): string | null {
  const value = (Array.isArray(header) ? header[0] : header)?.trim();
  // `Bearer ` with nothing after it (trimmed to `Bearer`) carries no token, like an empty header.
  if (!value || /^Bearer$/i.test(value)) return null;
  const m = /^Bearer\s+(.+)$/i.exec(value);
  const token = (m ? m[1] : value)?.trim();
  return token ? token : null;
}

/** A preHandler that refuses requests without a valid token with the envelope clients compare. */
export function requireAuth(tokens: TokenService) {
  return async (req: FastifyRequest, reply: FastifyReply) => {
    const info = tokens.verify(bearerToken(req.headers.authorization));
    if (!info) return sendFailure(reply, 401, 'headers.Authorization is invalid');
    req.token = info;
  };
}
