/** The shapes of a third-party event (T1) between the HTTP route and the driver that handles it. */
import type { Failed } from '../../catalog/errors.ts';

/** One T1 event after the envelope is read: header name, endpoint and payload as sent. */
export interface InboundEvent {
  name: string;
  version: string;
  endpoint: unknown;
  payload: unknown;
  /** The token that sent it. */
  token: { id: string; app_name: string | null };
}

/**
 * The reply payload, or the failure the ErrorResponse tells (its `type` from the code,
 * eventErrorType of the catalog; its `description` the message).
 */
export type InboundResult = { ok: true; payload: Record<string, unknown> } | Failed;

/** Handles the device events of T1 (DiscoveryRequest and the three reports). */
export interface DeviceEventInbox {
  readonly eventNames: readonly string[];
  handle(event: InboundEvent): InboundResult;
}
