/**
 * What the Open API's routes are given by the composition root: the core services (the HTTP layer
 * knows no driver; cameras through the core's CameraApi), and what is this surface's own.
 */
import type { CoreServices } from '../../core/services.ts';

export interface OpenApiServices extends CoreServices {
  /** Whether a Host header names this gateway (token requests are answered only then). */
  ownHost(host: string | undefined): boolean;
  /** Asks the process to restart (G8); called after the reply is on the wire. */
  restart(): void;
}
