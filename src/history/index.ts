/** The history (issue 27): its public surface. docs/history.md describes it. */
export {
  ENERGY_QUERY,
  EXCLUSION,
  FORGET,
  LOGBOOK_QUERY,
  SERIES_CSV_QUERY,
  SERIES_QUERY,
} from './arguments.ts';
export type { EnergyAnswer, EnergyBucket } from './energy.ts';
export type { SeriesKind } from './fields.ts';
export { type Exclusion, History, type HistoryDeviceSummary, type HistoryStats } from './history.ts';
export type { LogbookPage, LogEntry } from './logbook.ts';
export type {
  EventMapper,
  HistoryBus,
  HistoryBusEvent,
  HistoryDevice,
  HistoryDevices,
  HistoryOptions,
  HistorySettings,
  LogbookInput,
  StepReport,
} from './ports.ts';
export { GATEWAY_EVENTS } from './recorder.ts';
export { RESOLUTIONS, type SeriesAnswer } from './series-query.ts';
export { hostTimeZone, isTimeZone } from './zone.ts';
