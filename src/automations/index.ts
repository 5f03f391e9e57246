/**
 * Scenes and automations (issue 26): the engine and its model. The public surface for the
 * gateway (phase 2 wires it) and the tests.
 */
export { corePorts, type EngineServices, engineSettings } from './core-ports.ts';
export { AutomationEngine, type Saved, type Started } from './engine.ts';
export { automationLimits } from './limits.ts';
export type { Action, Condition, Definition, DefinitionInput, RunMode, Trigger } from './model.ts';
export type { EnginePorts, EngineSettings } from './ports.ts';
export type { Bucket, Trace } from './trace.ts';
