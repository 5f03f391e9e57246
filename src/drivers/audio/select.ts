/**
 * Picks the audio sink from the settings: `aplay` on a machine with a sound card and aplay
 * installed, else `null`; or what `audio.sink` names.
 */
import { accessSync, constants, readFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import type { AudioSink } from '../../core/audio/sink.ts';
import type { Log } from '../../lib/log.ts';
import { NullSink } from './null-sink.ts';
import { ProcessSink } from './process-sink.ts';

export interface SinkSettings {
  sink: 'auto' | 'aplay' | 'command' | 'null';
  aplay_device: string;
  command: string;
}

/** True when ALSA lists at least one sound card. */
export function hasSoundCard(cards = '/proc/asound/cards'): boolean {
  try {
    const text = readFileSync(cards, 'utf8');
    return /^\s*\d+\s*\[/m.test(text);
  } catch {
    return false;
  }
}

/** The full path of an executable on PATH, or undefined. */
export function onPath(command: string, path = process.env.PATH ?? ''): string | undefined {
  for (const dir of path.split(delimiter)) {
    if (!dir) continue;
    const file = join(dir, command);
    try {
      accessSync(file, constants.X_OK);
      return file;
    } catch {
      // not here
    }
  }
  return undefined;
}

/** The sink `aplay -q [-D device] -t wav -`. */
export function aplaySink(device: string): AudioSink {
  const args = ['-q', ...(device ? ['-D', device] : []), '-t', 'wav', '-'];
  return new ProcessSink({ kind: 'aplay', command: 'aplay', args });
}

/** The sink that runs `sh -c <command>` for each clip, the clip as WAV on its stdin. */
export function commandSink(command: string): AudioSink {
  return new ProcessSink({ kind: 'command', command: 'sh', args: ['-c', command], group: true });
}

/** The sink the settings ask for; throws for a `command` sink without a command. */
export function createSink(s: SinkSettings, log?: Log): AudioSink {
  switch (s.sink) {
    case 'null':
      return new NullSink();
    case 'aplay':
      if (!onPath('aplay')) log?.warn({}, 'audio.sink is aplay, but aplay is not installed (Debian: alsa-utils)');
      return aplaySink(s.aplay_device);
    case 'command':
      if (s.command.trim() === '') throw new Error('audio.command: required when audio.sink is `command`');
      return commandSink(s.command);
    default:
      return hasSoundCard() && onPath('aplay') ? aplaySink(s.aplay_device) : new NullSink();
  }
}
