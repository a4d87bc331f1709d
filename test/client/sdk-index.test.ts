/**
 * generated/client/index.gen.ts at run time: the values it re-exports are the very objects of
 * the runtime and of the generated modules (its types are checked in types.test-d.ts).
 */
import { describe, expect, it } from "vitest";
import { provisionMailbox } from "../../generated/client/examples/cloudmail/index.gen.ts";
import * as sdk from "../../generated/client/index.gen.ts";
import { MailboxPlan, MailboxTypeId } from "../../generated/types/examples/cloudmail/index.gen.ts";
import { ApsError } from "../../runtime/client/aps-error.ts";
import { createClient } from "../../runtime/client/client.ts";

describe("one import: generated/client/index.gen.ts", () => {
  it("re-exports the runtime's and the generated modules' values themselves", () => {
    expect(sdk.ApsError).toBe(ApsError);
    expect(sdk.createClient).toBe(createClient);
    expect(sdk.provisionMailbox).toBe(provisionMailbox);
    expect(sdk.MailboxPlan).toBe(MailboxPlan);
    expect(sdk.MailboxTypeId).toBe(MailboxTypeId);
  });

  it("carries the declared type id and enum values", () => {
    expect(sdk.MailboxTypeId).toBe("http://cloudmail.example.com/types/mailbox/1.0");
    expect(sdk.MailboxPlan.Business).toBe("business");
  });
});
