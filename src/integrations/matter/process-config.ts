/**
 * matter.js reads process.argv, the environment and ./config.json, and traps signals, unless told
 * not to before it first loads: the host process's own settings and signal handling stay in
 * charge. Used by the bridge and by the tests' controller.
 */
import { config } from '@matter/nodejs/config';

/**
 * Tells matter.js to leave the process alone. A second call in the same process (the console's
 * switch, a factory reset, an in-process restart) finds matter.js initialised: its config then
 * refuses any change (and has no getter to ask first), and the values of the first call are in force.
 */
export function leaveProcessAlone(): void {
  try {
    config.loadProcessArgv = false;
    config.loadProcessEnv = false;
    config.loadConfigFile = false;
    config.trapProcessSignals = false;
    config.trapUnhandledErrors = false;
    config.setProcessExitCodeOnError = false;
    config.installFilesystem = false;
  } catch (err) {
    if (!/already initialized/.test((err as Error)?.message ?? '')) throw err;
  }
}
