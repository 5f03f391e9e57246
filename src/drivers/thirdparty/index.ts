/** Third-party devices: synced through T1 events, controlled through T2 directives. */
export { DirectiveClient, type DirectiveReply, readReply } from './directives.ts';
export { THIRDPARTY_DRIVER, ThirdPartyDriver } from './driver.ts';
export { MAX_DISCOVERY_ENDPOINTS, ThirdPartyInbox } from './events.ts';
