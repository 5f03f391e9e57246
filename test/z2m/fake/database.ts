/**
 * herdsman's database file for the devices paired at start: one JSON object a line, each the
 * record herdsman keeps for an interviewed device. Written before Zigbee2MQTT starts, so those
 * devices are in the network and known, as after a real pairing; the coordinator's own record
 * is added by herdsman itself (it asks the fake coordinator for its endpoints).
 */
import type { HerdsmanZspec } from './herdsman.ts';
import type { FakeDeviceSpec } from './spec.ts';

/** The content of `database.db` for the paired devices among `devices`. */
export function herdsmanDatabase(devices: readonly FakeDeviceSpec[], zh: HerdsmanZspec, now = Date.now()): string {
  const { Zcl } = zh;
  const clusterId = (c: string | number) => (typeof c === 'number' ? c : Zcl.Utils.getCluster(c, undefined, {}).ID);
  const lines = devices
    .filter((d) => d.paired)
    .map((d, i) => {
      const basic = d.endpoints.find((e) => e.attributes?.genBasic)?.attributes?.genBasic ?? {};
      const endpoints = Object.fromEntries(
        d.endpoints.map((e) => [
          String(e.id),
          {
            profId: e.profileId,
            epId: e.id,
            devId: e.deviceId,
            inClusterList: e.inputClusters.map(clusterId),
            outClusterList: e.outputClusters.map(clusterId),
            clusters: Object.fromEntries(
              Object.entries(e.attributes ?? {}).map(([name, attributes]) => [name, { attributes: { ...attributes } }]),
            ),
            binds: [],
            configuredReportings: [],
            meta: {},
          },
        ]),
      );
      return {
        id: i + 2,
        type: d.type,
        ieeeAddr: d.ieee,
        nwkAddr: d.nwk,
        manufId: d.manufacturerCode,
        manufName: basic.manufacturerName,
        powerSource: typeof basic.powerSource === 'number' ? Zcl.PowerSource[basic.powerSource] : undefined,
        modelId: basic.modelId,
        epList: d.endpoints.map((e) => e.id),
        endpoints,
        appVersion: basic.appVersion,
        stackVersion: basic.stackVersion,
        hwVersion: basic.hwVersion,
        dateCode: basic.dateCode,
        swBuildId: basic.swBuildId,
        zclVersion: basic.zclVersion,
        interviewCompleted: true,
        interviewState: 'SUCCESSFUL',
        meta: {},
        lastSeen: now,
      };
    });
  return lines.map((l) => JSON.stringify(l)).join('\n') + (lines.length > 0 ? '\n' : '');
}
