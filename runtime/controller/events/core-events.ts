/**
 * The events the controller raises (docs/aps/events.md, "The events the controller raises").
 * Subscribers may name other event types too (a real platform has more); the controller only ever
 * raises these.
 */
export const CoreEvent = {
  available: "http://aps-standard.org/core/events/available",
  changed: "http://aps-standard.org/core/events/changed",
  removed: "http://aps-standard.org/core/events/removed",
  linked: "http://aps-standard.org/core/events/linked",
  unlinked: "http://aps-standard.org/core/events/unlinked",
  /**
   * The platform's limits-changed event of platform subscriptions
   * (docs/aps/events.md, "The events the controller raises").
   */
  limitsChanged: "http://parallels.com/aps/events/pa/subscription/limits/changed",
} as const;

/** The only type whose resources raise limits/changed (docs/aps/events.md, "The events the controller raises"). */
export const PLATFORM_SUBSCRIPTION_TYPE = "http://parallels.com/aps/types/pa/subscription/1.0";

/** Events about links: only these take a `relation` filter. */
export const LINK_EVENTS: ReadonlySet<string> = new Set([CoreEvent.linked, CoreEvent.unlinked]);
