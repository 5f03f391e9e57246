/** Audio sinks (aplay, a command, null, recording) and the fetcher of audio by URL. */
export { HttpAudioFetcher } from './http-fetch.ts';
export { NullSink } from './null-sink.ts';
export { ProcessSink, type ProcessSinkOptions } from './process-sink.ts';
export { type Recorded, RecordingSink } from './recording-sink.ts';
export { aplaySink, commandSink, createSink, hasSoundCard, onPath, type SinkSettings } from './select.ts';
