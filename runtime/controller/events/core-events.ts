/**
 * The events the controller raises (aps-facts 5, SPEC 6.3). Subscribers may name other event
 * types too (a real platform has more); the controller only ever raises these.
 */
export const CoreEvent = {
  available: "http://aps-standard.org/core/events/available",
  changed: "http://aps-standard.org/core/events/changed",
  removed: "http://aps-standard.org/core/events/removed",
  linked: "http://aps-standard.org/core/events/linked",
  unlinked: "http://aps-standard.org/core/events/unlinked",
  /**
   * SPEC 6.3 `{vendor_base}/aps/events/platform/subscription/limits/changed`, spelled as the
   * platform spells it (core-types.md 15.1: `vendor_base` is http://parallels.com, `platform` is `pa`).
   */
  limitsChanged: "http://parallels.com/aps/events/pa/subscription/limits/changed",
} as const;

/** The only type whose resources raise limits/changed (SPEC 6.3). */
export const PLATFORM_SUBSCRIPTION_TYPE = "http://parallels.com/aps/types/pa/subscription/1.0";

/** Events about links: only these take a `relation` filter. */
export const LINK_EVENTS: ReadonlySet<string> = new Set([CoreEvent.linked, CoreEvent.unlinked]);
