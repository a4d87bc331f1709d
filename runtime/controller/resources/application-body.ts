/**
 * The resource as an application is sent it: the body of a provisioning call, of a configure, and
 * of their asynchronous repeats. It is the resource as the controller holds it at that moment
 * (the new state, for a configure), in the shape a GET by the application shows, so that a
 * connector reads the same members whichever call it handles:
 *
 * - `aps`: `id`, `type`, `status` (`aps:provisioning` while provisioning), `revision`, `modified`,
 *   `subscription` when the resource belongs to one, `schema`, `package`. The platform's own
 *   provisioning bodies carry `aps.status` and `aps.subscription` (roluch/fallball-connector
 *   tests/v1/test_tenant.py:48-51); FallBall refuses a tenant without them
 *   (connector/v1/resources/tenant.py:51-60), the Connect extension parses them, with `aps.id`
 *   and `aps.type`, from provisioning and configure bodies alike
 *   (cloudblue/connect-extension-for-cb-commerce cbcext/models/fulfillment_models.py:166-170,
 *   used by cbcext/api/tenant.py:47-106).
 * - every property value, encrypted ones included (the application serves them);
 * - singular links as `{"aps": {"id": ...}}`, collection links as arrays of them (only on the
 *   provisioning call, which names them; stored collections are read with `GET .../<relation>`).
 */
import type { ProvisionBody } from "../forward/forwarder.ts";
import type { StoredLink } from "../store/resource-store.ts";
import { linkRef } from "../../common/link-ref.ts";
import type { ApsProvisionMeta } from "../../common/types.ts";
import type { RegistryType } from "../registry.ts";
import { apsMeta, type MetaFields } from "./resource-view.ts";

/** The `aps` members a body is built from: a stored row, or the one a provisioning is about to store. */
export type BodyMeta = MetaFields;

/** The body for `meta` with property `values` and `links` (relations of `type` only). */
export function applicationBody(
  meta: BodyMeta,
  type: RegistryType,
  values: Readonly<Record<string, unknown>>,
  links: readonly StoredLink[],
): ProvisionBody {
  const aps: ApsProvisionMeta = apsMeta(meta, true);
  const body: Record<string, unknown> = { ...values };
  for (const [name, rel] of Object.entries(type.relations)) {
    const targets = links.filter((l) => l.relation === name).map((l) => linkRef(l.targetId));
    if (!targets.length) continue;
    body[name] = rel.collection ? targets : targets[0];
  }
  return { aps, ...body };
}
