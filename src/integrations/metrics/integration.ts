/**
 * Metrics as an integration: started before the gateway listens, so that every request, command,
 * event and store write is counted; served at `GET /metrics` by the health surface, which reads
 * them through status() (the text, its content type, and whether they are open to anyone).
 */
import type { Integration } from '../../core/integration.ts';
import type { Settings } from '../../settings/index.ts';
import { GatewayMetrics } from './index.ts';

/** What the health surface reads of the metrics (status() of the `metrics` integration). */
export interface MetricsText {
  /** `open`: anyone may read them; else an Open API token is needed. */
  open: boolean;
  text(): Promise<string>;
  contentType: string;
}

export function metricsIntegration(): Integration<Settings> {
  let metrics: GatewayMetrics | undefined;
  let open = false;
  return {
    startsAt: 'listen',
    start(ctx) {
      open = ctx.settings.metrics === 'open';
      const m = new GatewayMetrics({ devices: ctx.core.devices, bus: ctx.bus, streams: ctx.streams });
      ctx.core.devices.observe(m);
      ctx.taps.onRequest((route, method, outcome) => m.request(route, method, outcome));
      ctx.taps.onStoreWrite((ms) => m.storeWrite(ms));
      metrics = m;
    },
    stop() {},
    status(): MetricsText | undefined {
      const m = metrics;
      return m && { open, text: () => m.text(), contentType: m.contentType };
    },
  };
}
