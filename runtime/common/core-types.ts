/**
 * Names of the APS core that the generator and the controller both give meaning to: the type ids of
 * core types (docs/aps/types.md) and the resource statuses the controller sets
 * (docs/aps/lifecycle.md, "Statuses and transitions").
 */

/** Type ids of the core types the model and the controller treat specially. */
export const CoreTypeIds = {
  resource: "http://aps-standard.org/types/core/resource/1.0",
  application: "http://aps-standard.org/types/core/application/1.0",
  suspendable: "http://aps-standard.org/types/core/suspendable/1.0",
  account: "http://aps-standard.org/types/core/account/1.0",
  user: "http://aps-standard.org/types/core/user/1.0",
  subscription: "http://aps-standard.org/types/core/subscription/1.0",
} as const;

/** The `aps.status` values the controller sets. */
export const ResourceStatus = {
  ready: "aps:ready",
  provisioning: "aps:provisioning",
  configuring: "aps:configuring",
  unprovisioning: "aps:unprovisioning",
  disabled: "aps:disabled",
  /** An application root while its instance upgrades (instances/instance-upgrade.ts). */
  upgrading: "aps:upgrading",
} as const;
