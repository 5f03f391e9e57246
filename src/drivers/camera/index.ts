/**
 * Cameras: RTSP cameras and ESP32-CAM boards added by hand (D2), probed, watched, and seen
 * through snapshots and a live MJPEG view. This file is the folder's public surface.
 */
export { CAMERA_DRIVER } from './camera.ts';
export { CameraDriver, type CameraDriverOptions, type CameraSettings } from './driver.ts';
export type { LiveViewer } from './live.ts';
export type { SnapshotOutcome } from './snapshots.ts';
export { maskUrl } from './stream-url.ts';
export { realTimers, type Timers } from './watcher.ts';
