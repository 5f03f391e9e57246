/**
 * The published limits of scenes and automations (docs/automations.md prints this table): a
 * definition past one of them is refused when saved, with the limit in the message, instead of
 * being accepted and slowing the gateway down or being evicted later.
 */
export const automationLimits = Object.freeze({
  /** Scenes and automations together. */
  definitions: 1000,
  nameChars: 100,
  triggers: 20,
  /** Conditions in all, those inside groups included. */
  conditions: 50,
  /** Groups (`all`, `any`, `not`) inside groups: at most this deep. */
  conditionDepth: 4,
  actions: 100,
  /** The largest `max` of a queued or parallel automation (runs waiting or running at once). */
  maxRuns: 10,
  /** Runs of all automations at once (running, waiting in a delay or a wait, or queued). */
  runsInAll: 200,
  /** A delay, a `for` or a wait's time-out, in seconds (7 days). */
  durationSeconds: 7 * 86_400,
  /** A sun offset, in minutes (either way). */
  sunOffsetMinutes: 720,
  textChars: 500,
  /** Runs started from runs (an automation's action caused the trigger of the next) before a chain is stopped. */
  causalDepth: 8,
  /** Runs of one automation within rateWindowSeconds before its next triggers are refused. */
  rateRuns: 30,
  rateWindowSeconds: 60,
  /** Traces kept per automation in each bucket: runs, failed runs, triggers not run. */
  traces: 10,
});
