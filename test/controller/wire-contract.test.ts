/**
 * The event notification the controller builds (runtime/common/event-notification.ts) is what the
 * core `Notification` structure declares (types/core), which generated handlers receive: checked
 * by the compiler (the assignment below fails `tsc` when the two part) and, at run time, by the
 * generated validator of that structure.
 */
import { describe, expect, expectTypeOf, it } from "vitest";
import type { Notification } from "../../generated/types/core/index.gen.ts";
import { checkResourceNotification } from "../../generated/validators/core/index.gen.ts";
import type { EventNotification } from "../../runtime/common/event-notification.ts";
import type { ValidationError } from "../../runtime/common/validation-error.ts";
import { notificationBody } from "../../runtime/controller/events/event-deliverer.ts";
import type { ClaimedNotification } from "../../runtime/controller/events/notification-store.ts";

const claimed: ClaimedNotification = {
  id: 7,
  serial: 42,
  subscriptionId: "2f0c4a1e-5b7d-4c53-9a57-3f7e2b1c9d10",
  subscriberId: "8d1e2a3b-4c5d-4e6f-8a9b-0c1d2e3f4a5b",
  subscriberType: "http://example.com/tenant/1.0",
  instanceId: null,
  handler: "onChanged",
  event: "http://aps-standard.org/core/events/changed",
  time: "2024-05-01T10:00:00.000Z",
  sourceId: "0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d",
  sourceType: "http://example.com/mailbox/1.0",
  relation: null,
  targetId: null,
  attempts: 0,
};

function problems(value: unknown): ValidationError[] {
  const errors: ValidationError[] = [];
  checkResourceNotification(value, "", errors);
  return errors;
}

describe("the event notification contract", () => {
  it("is a core Notification, as typed handlers take it", () => {
    expectTypeOf<EventNotification>().toExtend<Notification>();
    const asDeclared: Notification = notificationBody(claimed);
    expect(asDeclared.type).toBe(claimed.event);
  });

  it("passes the core Notification validator, for plain and link events", () => {
    expect(problems(notificationBody(claimed))).toEqual([]);
    const linked = notificationBody({
      ...claimed,
      event: "http://aps-standard.org/core/events/linked",
      relation: "domains",
      targetId: "1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d",
    });
    expect(linked).toMatchObject({ relation: "domains", target: { id: "1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d" } });
    expect(problems(linked)).toEqual([]);
  });

  it("is refused by that validator when a member has another type (so the check above can fail)", () => {
    expect(problems({ ...notificationBody(claimed), serial: "42" }).map((e) => e.path)).toEqual(["/serial"]);
  });
});
